#pragma once
// Every SolverOptions field as an editor with its valid range and a tooltip saying what it does
// (from solverOptionInfo()). A value is validated by setSolverOption when the edit is committed:
// a bad one is refused inline and the options stay unchanged. With an undo stack, every accepted
// edit is one command; consecutive edits of one option merge into one.
#include "model/solver_options.hpp"

#include <QWidget>
#include <map>
#include <string>

class QLabel;
class QUndoStack;

namespace gpurec::ui {

class SolverKnobsPanel : public QWidget {
    Q_OBJECT
  public:
    explicit SolverKnobsPanel(QWidget* parent = nullptr);
    const SolverOptions& options() const { return options_; }
    void setOptions(const SolverOptions& options); // shows them, without emitting
    // Edits become commands on `stack` (Edit ▸ Undo puts the previous value back and emits).
    void setUndoStack(QUndoStack* stack) { undo_ = stack; }
    // The editor of a field (QLineEdit, QComboBox or QCheckBox), named "knob_<field>".
    QWidget* editor(const std::string& name) const;
    // The inline error of a field ("" when its last edit was accepted).
    QString errorText(const std::string& name) const;

  signals:
    void optionsChanged(const gpurec::SolverOptions& options);

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    struct Knob {
        QWidget* editor;
        QLabel* error;
    };
    // Validates and applies `value` for `name`; on success emits optionsChanged.
    void commit(const std::string& name, const QString& value);
    // `after` in place of the current options: as a command when there is an undo stack.
    void change(const QString& text, const SolverOptions& after, int mergeId);
    void apply(const SolverOptions& options); // shows and emits
    void showValue(const std::string& name);

    SolverOptions options_;
    std::map<std::string, Knob> knobs_;
    QUndoStack* undo_ = nullptr;
};

} // namespace gpurec::ui
