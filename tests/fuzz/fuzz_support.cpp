#include "fuzz_support.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace gpurec::fuzz {

std::vector<std::string> splitParts(const std::uint8_t* data, std::size_t size, std::size_t maxParts) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const std::string separator = kPartSeparator;
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (parts.size() + 1 < maxParts) {
        const std::size_t end = text.find(separator, start);
        if (end == std::string::npos) break;
        parts.push_back(text.substr(start, end - start));
        start = end + separator.size();
    }
    parts.push_back(text.substr(start));
    return parts;
}

ScratchFolder::ScratchFolder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "gpurec_fuzz_XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot create a scratch folder from " + pattern);
    path_ = pattern;
}

ScratchFolder::~ScratchFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
}

std::string ScratchFolder::write(const std::string& name, const std::string& text) const {
    // A plain stream, not OutputFile: these are throw-away inputs, and an fsync per fuzz input
    // would slow the fuzzer down without protecting anything.
    const std::string file = path_ + "/" + name;
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    // A harness that cannot write its inputs would fuzz nothing: stop loudly.
    if (!out) throw std::runtime_error("cannot write the fuzz input file " + file);
    return file;
}

void ScratchFolder::clear() const {
    for (const auto& entry : std::filesystem::directory_iterator(path_))
        std::filesystem::remove_all(entry.path());
}

} // namespace gpurec::fuzz
