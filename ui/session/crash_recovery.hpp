#pragma once
// Restoring the autosave after a crash. While a workbench runs, it holds a lock file beside the
// autosave (QLockFile: the process id inside tells a live holder from a dead one); a clean exit
// removes it. A lock file left by a process that is gone means the last run did not exit cleanly
// (killed, crashed, power lost), and its autosave is offered back on the next start.
#include <QLockFile>
#include <QString>

namespace gpurec::ui {

class WorkbenchWindow;

class RunMarker {
  public:
    explicit RunMarker(const QString& path = defaultPath());
    RunMarker(const RunMarker&) = delete;
    RunMarker& operator=(const RunMarker&) = delete;
    // Beside WorkbenchWindow::autosavePath().
    static QString defaultPath();
    // The previous workbench left its marker behind: it did not exit cleanly.
    bool uncleanExitFound() const { return unclean_; }
    // Another workbench holds the marker: it runs now (and autosaves to the same file).
    bool otherInstanceRunning() const { return !lock_.isLocked(); }

  private:
    QLockFile lock_;
    bool unclean_ = false;
};

enum class RestoreAnswer { Ask, Restore, Discard };
// "ask", "yes" or "no" (the --restore-autosave option); throws std::invalid_argument otherwise.
RestoreAnswer parseRestoreAnswer(const QString& text);

// After an unclean exit that left an autosave, asks whether to restore it (a message box named
// "restoreAutosavePrompt" with Restore and Discard) unless `answer` says. True when the autosaved
// session is being opened (WorkbenchWindow::sessionOpened follows).
bool offerAutosaveRestore(WorkbenchWindow& window, const RunMarker& marker, RestoreAnswer answer);

} // namespace gpurec::ui
