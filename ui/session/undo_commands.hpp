#pragma once
// Undoable changes of the workbench (Edit ▸ Undo / Redo). A command holds the state before and
// after a change and one function that puts a state in place (widgets and engine alike), so undo
// restores exactly what was there: the rates bit for bit, an option's value, a mode.
#include "worker/engine_session.hpp"

#include <QUndoCommand>
#include <functional>
#include <utility>
#include <vector>

namespace gpurec::ui {

// Merge ids (QUndoCommand::id): consecutive commands with the same id become one.
constexpr int kNoMerge = -1;
constexpr int kKnobMergeBase = 1000; // + the option's index in solverOptionInfo()

// The base of every workbench command: says whether it may run while the engine runs (rates
// cannot change during a run; solver options and the optimiser's method can).
class WorkbenchCommand : public QUndoCommand {
  public:
    WorkbenchCommand(const QString& text, bool needsIdleEngine)
        : QUndoCommand(text), needsIdleEngine_(needsIdleEngine) {}
    bool needsIdleEngine() const { return needsIdleEngine_; }

  private:
    bool needsIdleEngine_;
};

// What a rate reset, a mode change or an optimisation replaces: the rates (their mode included)
// and the optimisation history behind the plots.
struct RatesState {
    RateParameters theta;
    std::vector<IterationSample> history;
};

template <class State> class StateChange : public WorkbenchCommand {
  public:
    using Apply = std::function<void(const State&)>;
    using Same = std::function<bool(const State&, const State&)>;
    struct Options {
        bool needsIdleEngine = false;
        bool alreadyApplied = false; // the change is in place: the first redo (QUndoStack::push) skips
        int mergeId = kNoMerge;
        Same same; // when merged edits come back to `before`, the command goes (QUndoCommand::setObsolete)
    };

    StateChange(const QString& text, State before, State after, Apply apply, Options options)
        : WorkbenchCommand(text, options.needsIdleEngine), before_(std::move(before)),
          after_(std::move(after)), apply_(std::move(apply)), skipRedo_(options.alreadyApplied),
          mergeId_(options.mergeId), same_(std::move(options.same)) {}

    int id() const override { return mergeId_; }
    void undo() override { apply_(before_); }
    void redo() override {
        if (std::exchange(skipRedo_, false)) return;
        apply_(after_);
    }
    bool mergeWith(const QUndoCommand* other) override {
        // QUndoStack merges only equal ids, and an id is used by one State type.
        const auto* next = static_cast<const StateChange*>(other);
        after_ = next->after_;
        setText(next->text());
        if (same_) setObsolete(same_(before_, after_));
        return true;
    }

  private:
    State before_, after_;
    Apply apply_;
    bool skipRedo_;
    int mergeId_;
    Same same_;
};

} // namespace gpurec::ui
