#pragma once
// Shared pieces of the libFuzzer targets: inputs that stand for several files are split at a
// separator line, and readers that take paths get the parts written into a scratch folder.
#include <cstdint>
#include <string>
#include <vector>

namespace gpurec::fuzz {

// The separator between the files of one fuzz input (also in the dictionaries).
inline constexpr const char* kPartSeparator = "\n%%\n";

// The input cut at every separator into at most `maxParts` parts (the last keeps the rest).
std::vector<std::string> splitParts(const std::uint8_t* data, std::size_t size, std::size_t maxParts);

// A folder of its own under the temporary directory, removed when the process ends normally.
class ScratchFolder {
  public:
    ScratchFolder();
    ~ScratchFolder();
    ScratchFolder(const ScratchFolder&) = delete;
    ScratchFolder& operator=(const ScratchFolder&) = delete;

    const std::string& path() const { return path_; }
    // Writes `text` to path()/name and returns that path.
    std::string write(const std::string& name, const std::string& text) const;
    // Removes every file in the folder, so one input never sees the files of the previous one.
    void clear() const;

  private:
    std::string path_;
};

} // namespace gpurec::fuzz
