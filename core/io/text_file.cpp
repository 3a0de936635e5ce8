#include "io/text_file.hpp"

#include "io/input_error.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gpurec {

std::string readTextFile(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw InputError(path, 0, 0, "is a directory, not a file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, 0, 0, std::string("cannot open file: ") + std::strerror(errno));
    std::ostringstream buffer;
    buffer << in.rdbuf();
    if (in.bad()) throw InputError(path, 0, 0, std::string("read error: ") + std::strerror(errno));
    std::string text = std::move(buffer).str();
    if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
    if (text.rfind("\xFF\xFE", 0) == 0 || text.rfind("\xFE\xFF", 0) == 0)
        throw InputError(path, 1, 1,
                         "file is UTF-16 encoded (byte-order mark); save it as UTF-8 or ASCII text");
    if (auto nul = text.find('\0'); nul != std::string::npos) {
        const auto before = text.begin() + static_cast<std::ptrdiff_t>(nul);
        const int line = 1 + static_cast<int>(std::count(text.begin(), before, '\n'));
        const std::size_t newline = text.rfind('\n', nul);
        const std::size_t lineStart = newline == std::string::npos ? 0 : newline + 1;
        throw InputError(path, line, static_cast<int>(nul - lineStart) + 1,
                         "NUL byte (\\0) in a text file: the file is binary or corrupted");
    }
    return text;
}

} // namespace gpurec
