#include "panels/solver_knobs_panel.hpp"

#include "panels/number_text.hpp"
#include "session/undo_commands.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QUndoStack>
#include <QVBoxLayout>
#include <algorithm>
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

bool sameOptions(const SolverOptions& a, const SolverOptions& b) {
    for (const SolverOptionInfo& info : solverOptionInfo())
        if (getSolverOption(a, info.name) != getSolverOption(b, info.name)) return false;
    return true;
}

int mergeIdOf(const std::string& name) {
    const auto& all = solverOptionInfo();
    const auto it =
        std::find_if(all.begin(), all.end(), [&](const SolverOptionInfo& i) { return i.name == name; });
    return kKnobMergeBase + static_cast<int>(it - all.begin());
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
            edit->installEventFilter(this);
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
    defaults->setObjectName("restoreKnobDefaults");
    defaults->setAccessibleName(tr("Restore solver defaults"));
    defaults->setToolTip(tr("Set every solver option back to its default value"));
    connect(defaults, &QPushButton::clicked, this,
            [this] { change(tr("Restore solver defaults"), SolverOptions{}, kNoMerge); });
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
    change(tr("Set %1 to %2").arg(QString::fromStdString(name), currentValue(updated, name)), updated,
           mergeIdOf(name));
}

void SolverKnobsPanel::change(const QString& text, const SolverOptions& after, int mergeId) {
    if (sameOptions(options_, after)) {
        setOptions(options_); // clears errors
        return;
    }
    if (!undo_) {
        apply(after);
        return;
    }
    StateChange<SolverOptions>::Options how;
    how.mergeId = mergeId;
    how.same = sameOptions;
    undo_->push(new StateChange<SolverOptions>(
        text, options_, after, [this](const SolverOptions& o) { apply(o); }, how));
}

void SolverKnobsPanel::apply(const SolverOptions& options) {
    setOptions(options);
    emit optionsChanged(options_);
}

bool SolverKnobsPanel::eventFilter(QObject* watched, QEvent* event) {
    // Ctrl+Z in a field whose edit was committed (its own history is empty then) is Edit ▸ Undo:
    // the field lets the window's shortcut have it.
    auto* edit = qobject_cast<QLineEdit*>(watched);
    if (edit && event->type() == QEvent::ShortcutOverride) {
        auto* key = static_cast<QKeyEvent*>(event);
        if ((key->matches(QKeySequence::Undo) && !edit->isUndoAvailable()) ||
            (key->matches(QKeySequence::Redo) && !edit->isRedoAvailable())) {
            event->ignore();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace gpurec::ui
