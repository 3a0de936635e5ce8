// Workbench session files on arbitrary bytes, through the reader the workbench uses (JSON parsing,
// then every field). Anything wrong must be a std::runtime_error naming the file, and a session it
// accepts must survive being written and read again.
#include "fuzz_support.hpp"
#include "session/session_file.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const gpurec::fuzz::ScratchFolder scratch;
    const QString path = QString::fromStdString(
        scratch.write("session.json", std::string(reinterpret_cast<const char*>(data), size)));
    gpurec::ui::SessionState state;
    try {
        state = gpurec::ui::readSessionFile(path);
    } catch (const std::runtime_error&) {
        return 0;
    }
    gpurec::ui::writeSessionFile(path, state);
    const gpurec::ui::SessionState again = gpurec::ui::readSessionFile(path);
    if (gpurec::ui::sessionToJson(again) != gpurec::ui::sessionToJson(state)) __builtin_trap();
    return 0;
}
