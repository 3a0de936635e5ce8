#pragma once
// The list of input problems after a load: what went wrong, in which file and line, for which
// family, and which families were left out for covering too few species.
#include "input/input_loader.hpp"

#include <QWidget>

class QLabel;
class QTreeWidget;

namespace gpurec::ui {

class ProblemsPanel : public QWidget {
    Q_OBJECT
  public:
    explicit ProblemsPanel(QWidget* parent = nullptr);
    // `loaded`: whether a dataset came out of the load (valid families were kept).
    void showProblems(const std::vector<LoadProblem>& problems, bool loaded);
    int problemCount() const;

  private:
    QLabel* summary_;
    QTreeWidget* list_;
};

} // namespace gpurec::ui
