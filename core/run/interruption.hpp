#pragma once
// SIGINT / SIGTERM as a request to stop at the next safe point (between two likelihood
// evaluations, between two families) instead of ending the process mid-way. A second signal ends
// the process at once (its outputs stay consistent: every file is written through OutputFile).
#include <string>

namespace gpurec {

// Installs the handlers for SIGINT and SIGTERM while alive and restores the previous ones after.
// Commands that can stop early and still write a consistent result hold one; the others keep
// the default behaviour (the signal ends them).
class InterruptionHandlers {
  public:
    InterruptionHandlers();
    InterruptionHandlers(const InterruptionHandlers&) = delete;
    InterruptionHandlers& operator=(const InterruptionHandlers&) = delete;
    ~InterruptionHandlers();
};

// True once a handled signal has arrived (never reset: the run is ending).
bool interruptRequested();
// The signal that arrived (SIGINT, SIGTERM), 0 when none.
int interruptSignal();
// "SIGINT", "SIGTERM".
std::string signalName(int signal);

// Thrown by a command after it has written what it had when the signal came; main() turns it into
// the exit status 128 + signal (130 for SIGINT, 143 for SIGTERM). Deliberately not a
// std::exception, so generic error handlers let it through.
struct Interrupted {
    int signal = 0;
    int exitStatus() const { return 128 + signal; }
};

// Throws Interrupted when a signal has arrived.
void throwIfInterrupted();

// For tests: behave as if `signal` had arrived (0 clears the request).
void simulateInterruption(int signal);

// A run spread over processes (core/distributed) stops where its processes agree to, so that they
// all stop at the same point: once held, interruptRequested() and interruptSignal() report only the
// signal given to agreeOnInterruption (by the process group's agreement), and a signal's arrival is
// announced on stderr only when `announce` (one process speaks for the run).
void holdInterruptionsForAgreement(bool announce);
// The signal this process has received, agreed on or not (0: none).
int receivedInterruption();
void agreeOnInterruption(int signal);

} // namespace gpurec
