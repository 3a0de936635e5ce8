#include "solver_knobs_panel.hpp"

#include "number_text.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>
#include <stdexcept>

namespace gpurec::ui {

namespace {
const char* kErrorStyle = "QLineEdit { border: 1px solid #c0392b; background: #fdecea; }";

// Numbers shortest-first ("1e-15", not getSolverOption's round-trip "1.0000000000000001e-15").
QString displayed(const QString& value) {
    bool ok = false;
    double v = value.toDouble(&ok);
    return ok ? shortestNumber(v) : value;
}

QString currentValue(const SolverOptions& options, const std::string& name) {
    return displayed(QString::fromStdString(getSolverOption(options, name)));
}
} // namespace

SolverKnobsPanel::SolverKnobsPanel(QWidget* parent) : QWidget(parent) {
    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    for (const SolverOptionInfo& info : solverOptionInfo()) {
        const std::string name = info.name;
        const QString tip = QString("%1\nValid range: %2")
                                .arg(QString::fromStdString(info.help), QString::fromStdString(info.range));
        QWidget* editor = nullptr;
        if (info.range == "true|false") {
            auto* box = new QCheckBox;
            connect(box, &QCheckBox::toggled, this,
                    [this, name](bool on) { commit(name, on ? "true" : "false"); });
            editor = box;
        } else if (info.range.find('|') != std::string::npos) {
            auto* combo = new QComboBox;
            for (const QString& choice : QString::fromStdString(info.range).split('|'))
                combo->addItem(choice);
            connect(combo, &QComboBox::textActivated, this,
                    [this, name](const QString& text) { commit(name, text); });
            editor = combo;
        } else {
            auto* edit = new QLineEdit;
            edit->setPlaceholderText(QString::fromStdString(info.range));
            connect(edit, &QLineEdit::editingFinished, this,
                    [this, name, edit] { commit(name, edit->text().trimmed()); });
            editor = edit;
        }
        editor->setObjectName(QString::fromStdString("knob_" + name));
        editor->setAccessibleName(QString::fromStdString(name));
        editor->setToolTip(tip);
        auto* error = new QLabel;
        error->setObjectName(QString::fromStdString("knobError_" + name));
        error->setStyleSheet("color: #c0392b;");
        error->setWordWrap(true);
        error->hide();
        auto* cell = new QWidget;
        auto* cellLayout = new QVBoxLayout(cell);
        cellLayout->setContentsMargins(0, 0, 0, 0);
        cellLayout->setSpacing(1);
        cellLayout->addWidget(editor);
        cellLayout->addWidget(error);
        auto* label = new QLabel(QString::fromStdString(name));
        label->setToolTip(tip);
        form->addRow(label, cell);
        knobs_[name] = {editor, error};
    }
    auto* defaults = new QPushButton(tr("Restore defaults"));
    defaults->setToolTip(tr("Set every solver option back to its default value"));
    connect(defaults, &QPushButton::clicked, this, [this] {
        setOptions(SolverOptions{});
        emit optionsChanged(options_);
    });
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* intro =
        new QLabel(tr("Hover a name for what it does. Changes during a run apply from the next iteration."));
    intro->setWordWrap(true);
    layout->addWidget(intro);
    layout->addLayout(form);
    layout->addWidget(defaults, 0, Qt::AlignLeft);
    layout->addStretch(1);
    setOptions(options_);
}

QWidget* SolverKnobsPanel::editor(const std::string& name) const {
    return knobs_.at(name).editor;
}

QString SolverKnobsPanel::errorText(const std::string& name) const {
    const Knob& k = knobs_.at(name);
    return k.error->isHidden() ? QString() : k.error->text();
}

void SolverKnobsPanel::setOptions(const SolverOptions& options) {
    options_ = options;
    for (const auto& [name, knob] : knobs_)
        showValue(name);
}

void SolverKnobsPanel::showValue(const std::string& name) {
    const Knob& k = knobs_.at(name);
    const QString value = currentValue(options_, name);
    QSignalBlocker block(k.editor);
    if (auto* box = qobject_cast<QCheckBox*>(k.editor))
        box->setChecked(value == "true");
    else if (auto* combo = qobject_cast<QComboBox*>(k.editor))
        combo->setCurrentText(value);
    else if (auto* edit = qobject_cast<QLineEdit*>(k.editor)) {
        edit->setText(value);
        edit->setStyleSheet({});
    }
    k.error->hide();
}

void SolverKnobsPanel::commit(const std::string& name, const QString& value) {
    const Knob& k = knobs_.at(name);
    if (currentValue(options_, name) == displayed(value)) {
        showValue(name); // unchanged: clears a previous error
        return;
    }
    SolverOptions updated = options_;
    try {
        setSolverOption(updated, name, value.toStdString());
    } catch (const std::invalid_argument& e) {
        k.error->setText(QString::fromStdString(e.what()));
        k.error->show();
        if (auto* edit = qobject_cast<QLineEdit*>(k.editor)) edit->setStyleSheet(kErrorStyle);
        return;
    }
    options_ = updated;
    showValue(name);
    emit optionsChanged(options_);
}

} // namespace gpurec::ui
