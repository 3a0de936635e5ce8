#pragma once
// Every SolverOptions field as an editor with its valid range and a tooltip saying what it does
// (from solverOptionInfo()). A value is validated by setSolverOption when the edit is committed:
// a bad one is refused inline and the options stay unchanged.
#include "model/solver_options.hpp"

#include <QWidget>
#include <map>
#include <string>

class QLabel;

namespace gpurec::ui {

class SolverKnobsPanel : public QWidget {
    Q_OBJECT
  public:
    explicit SolverKnobsPanel(QWidget* parent = nullptr);
    const SolverOptions& options() const { return options_; }
    void setOptions(const SolverOptions& options); // shows them, without emitting
    // The editor of a field (QLineEdit, QComboBox or QCheckBox), named "knob_<field>".
    QWidget* editor(const std::string& name) const;
    // The inline error of a field ("" when its last edit was accepted).
    QString errorText(const std::string& name) const;

  signals:
    void optionsChanged(const gpurec::SolverOptions& options);

  private:
    struct Knob {
        QWidget* editor;
        QLabel* error;
    };
    // Validates and applies `value` for `name`; on success emits optionsChanged.
    void commit(const std::string& name, const QString& value);
    void showValue(const std::string& name);

    SolverOptions options_;
    std::map<std::string, Knob> knobs_;
};

} // namespace gpurec::ui
