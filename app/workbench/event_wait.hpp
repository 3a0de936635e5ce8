#pragma once
// Event-loop waits for the workbench's scripted tours (screenshots, benchmark): tools that drive
// the real window, where a bounded wait for a signal is the natural way to follow the engine.
#include <QEventLoop>
#include <QObject>
#include <QTimer>

namespace gpurec::ui {

// Runs the event loop until `signal` fires; false after `timeoutMs`.
template <typename Sender, typename Signal>
bool waitFor(Sender* sender, Signal signal, int timeoutMs = 300000) {
    QEventLoop loop;
    QTimer timeout;
    timeout.setSingleShot(true);
    QObject::connect(&timeout, &QTimer::timeout, &loop, [&loop] { loop.exit(1); });
    QObject::connect(sender, signal, &loop, [&loop] { loop.exit(0); });
    timeout.start(timeoutMs);
    return loop.exec() == 0;
}

// Lets queued replots and layouts finish (a pause is fine in a tool, never in a test).
inline void settle(int ms = 400) {
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

} // namespace gpurec::ui
