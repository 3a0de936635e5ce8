#include "run/interruption.hpp"

#include <atomic>
#include <csignal>
#include <unistd.h>

namespace gpurec {

namespace {

std::atomic<int> receivedSignal{0};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs a lock-free flag");
std::atomic<bool> heldForAgreement{false}, announceSignals{true};
static_assert(std::atomic<bool>::is_always_lock_free, "the signal handler reads a lock-free flag");
std::atomic<int> agreedSignal{0};

// The signal the run acts on: this process's own, or the one its process group agreed on.
int reportedSignal() {
    return (heldForAgreement.load(std::memory_order_relaxed) ? agreedSignal : receivedSignal)
        .load(std::memory_order_relaxed);
}

struct sigaction previousInt, previousTerm;

void onSignal(int signal) {
    int expected = 0;
    receivedSignal.compare_exchange_strong(expected, signal);
    // The next SIGINT or SIGTERM ends the process: whoever sends a second one means it.
    struct sigaction fallback {};
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    sigaction(SIGINT, &fallback, nullptr);
    sigaction(SIGTERM, &fallback, nullptr);
    if (!announceSignals.load(std::memory_order_relaxed)) return;
    static const char message[] = "\ngpurec: interrupted; finishing the current step and writing the best "
                                  "result so far (signal again to quit at once)\n";
    ssize_t ignored = write(STDERR_FILENO, message, sizeof message - 1);
    (void)ignored;
}

} // namespace

InterruptionHandlers::InterruptionHandlers() {
    struct sigaction action {};
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    sigaddset(&action.sa_mask, SIGINT);
    sigaddset(&action.sa_mask, SIGTERM);
    action.sa_flags = SA_RESTART; // reads and writes in progress go on; the flag is polled
    sigaction(SIGINT, &action, &previousInt);
    sigaction(SIGTERM, &action, &previousTerm);
}

InterruptionHandlers::~InterruptionHandlers() {
    sigaction(SIGINT, &previousInt, nullptr);
    sigaction(SIGTERM, &previousTerm, nullptr);
}

bool interruptRequested() {
    return reportedSignal() != 0;
}

int interruptSignal() {
    return reportedSignal();
}

std::string signalName(int signal) {
    switch (signal) {
    case SIGINT:
        return "SIGINT";
    case SIGTERM:
        return "SIGTERM";
    default:
        return "signal " + std::to_string(signal);
    }
}

void throwIfInterrupted() {
    if (int signal = interruptSignal()) throw Interrupted{signal};
}

void simulateInterruption(int signal) {
    receivedSignal.store(signal);
    agreedSignal.store(signal);
}

void holdInterruptionsForAgreement(bool announce) {
    announceSignals.store(announce);
    heldForAgreement.store(true);
}

int receivedInterruption() {
    return receivedSignal.load(std::memory_order_relaxed);
}

void agreeOnInterruption(int signal) {
    agreedSignal.store(signal, std::memory_order_relaxed);
}

} // namespace gpurec
