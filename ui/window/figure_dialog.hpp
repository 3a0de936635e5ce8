#pragma once
// Asks for a figure's size and file (SVG, PDF or PNG by extension): presets for slides and
// posters, or any size. The workbench exports what its central area shows (the current step).
#include <QDialog>
#include <QSize>

class QComboBox;
class QLineEdit;
class QSpinBox;

namespace gpurec::ui {

class FigureDialog : public QDialog {
    Q_OBJECT
  public:
    // `current`: the size the area has on screen (one of the presets).
    FigureDialog(const QSize& current, const QString& path, QWidget* parent = nullptr);
    QSize figureSize() const;
    QString path() const;

  private:
    QComboBox* preset_;
    QSpinBox *width_, *height_;
    QLineEdit* path_;
};

} // namespace gpurec::ui
