#include "session/crash_recovery.hpp"

#include "window/workbench_window.hpp"

#include <QDir>
#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>
#include <stdexcept>

namespace gpurec::ui {

RunMarker::RunMarker(const QString& path) : lock_(path) {
    lock_.setStaleLockTime(0); // stale only when its process is gone, however long a workbench runs
    const bool leftBehind = QFileInfo::exists(path);
    // tryLock removes a marker whose process is gone and takes it; a live holder keeps it.
    unclean_ = lock_.tryLock(0) && leftBehind;
}

QString RunMarker::defaultPath() {
    return QFileInfo(WorkbenchWindow::autosavePath()).dir().filePath("workbench.running");
}

RestoreAnswer parseRestoreAnswer(const QString& text) {
    if (text == "ask") return RestoreAnswer::Ask;
    if (text == "yes") return RestoreAnswer::Restore;
    if (text == "no") return RestoreAnswer::Discard;
    throw std::invalid_argument("--restore-autosave must be ask, yes or no, not '" + text.toStdString() +
                                "'");
}

bool offerAutosaveRestore(WorkbenchWindow& window, const RunMarker& marker, RestoreAnswer answer) {
    const QFileInfo autosave(WorkbenchWindow::autosavePath());
    if (!marker.uncleanExitFound() || !autosave.isFile()) return false;
    if (answer == RestoreAnswer::Ask) {
        QMessageBox box(QMessageBox::Question, QObject::tr("Restore the autosaved session?"),
                        QObject::tr("The workbench did not exit cleanly last time. Restore the session it "
                                    "autosaved at %1 (data, rates, mode, solver options, optimisation "
                                    "history and sampled reconciliations)?")
                            .arg(QLocale().toString(autosave.lastModified(), QLocale::ShortFormat)),
                        QMessageBox::Yes | QMessageBox::Discard, &window);
        box.setObjectName("restoreAutosavePrompt");
        box.button(QMessageBox::Yes)->setText(QObject::tr("Restore"));
        box.button(QMessageBox::Yes)->setToolTip(QObject::tr("Open the autosaved session"));
        box.button(QMessageBox::Discard)
            ->setToolTip(
                QObject::tr("Start without it (File ▸ Open autosaved session still opens it until the next "
                            "autosave replaces it)"));
        box.setDefaultButton(QMessageBox::Yes);
        answer = box.exec() == QMessageBox::Yes ? RestoreAnswer::Restore : RestoreAnswer::Discard;
    }
    if (answer != RestoreAnswer::Restore) return false;
    window.openSession(autosave.filePath());
    return true;
}

} // namespace gpurec::ui
