#include "run/interruption.hpp"

#include <atomic>
#include <csignal>
#include <unistd.h>

namespace gpurec {

namespace {

std::atomic<int> receivedSignal{0};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs a lock-free flag");

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
    return receivedSignal.load(std::memory_order_relaxed) != 0;
}

int interruptSignal() {
    return receivedSignal.load(std::memory_order_relaxed);
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
}

} // namespace gpurec
