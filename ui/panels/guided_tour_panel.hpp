#pragma once
// Teaching: a guided tour of a simulated dataset, one stop at a time (a title, a paragraph and Back
// / Next). What a stop shows in the other views is the owner's business (stopShown); the
// workbench's tour (workbench_tour.cpp) selects a family and rings an event of its true history.
#include <QString>
#include <QWidget>
#include <vector>

class QLabel;
class QPushButton;
class QTextBrowser;

namespace gpurec::ui {

struct TourStop {
    QString title;
    QString text; // rich text
};

class GuidedTourPanel : public QWidget {
    Q_OBJECT
  public:
    explicit GuidedTourPanel(QWidget* parent = nullptr);
    // Shows the first stop (stopShown(0) follows); no stops: an explanation why there is no tour.
    void setStops(std::vector<TourStop> stops, const QString& noTour = {});
    int stopCount() const { return static_cast<int>(stops_.size()); }
    int currentStop() const { return current_; }
    void showStop(int index); // clamped
    QString title() const;
    QString text() const;
    QPushButton* backButton() const { return back_; }
    QPushButton* nextButton() const { return next_; }

  signals:
    void stopShown(int index);
    void finished(); // Finish on the last stop

  private:
    std::vector<TourStop> stops_;
    int current_ = -1;
    QLabel *title_, *status_;
    QTextBrowser* text_;
    QPushButton *back_, *next_;
};

} // namespace gpurec::ui
