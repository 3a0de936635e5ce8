#include "io/output_file.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <stdexcept>
#include <unistd.h>

namespace gpurec {

namespace {
constexpr const char* kTemporaryMarker = ".gpurec-partial.";

std::string osReason(int err) { return err ? std::string(": ") + std::strerror(err) : std::string(); }

// fsync of a path opened read-only: enough on Linux to flush the file's or the folder's data.
int syncPath(const std::string& path, int flags) {
    int fd = ::open(path.c_str(), flags | O_CLOEXEC);
    if (fd < 0) return errno;
    int err = ::fsync(fd) == 0 ? 0 : errno;
    ::close(fd);
    return err;
}
} // namespace

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
    std::filesystem::path p(path_);
    temporary_ = (p.parent_path() / (p.filename().string() + kTemporaryMarker + std::to_string(::getpid())))
                     .string();
    errno = 0;
    out_.open(temporary_, std::ios::binary | std::ios::trunc);
    if (!out_) throw std::runtime_error("cannot write " + path_ + osReason(errno));
}

OutputFile::~OutputFile() {
    if (committed_) return;
    out_.close();
    std::error_code ignored;
    std::filesystem::remove(temporary_, ignored);
}

void OutputFile::commit() {
    errno = 0;
    out_.flush();
    int err = errno;
    out_.close();
    if (!out_) throw std::runtime_error("cannot write " + path_ + osReason(err ? err : errno));
    if (int e = syncPath(temporary_, O_RDONLY)) throw std::runtime_error("cannot write " + path_ + osReason(e));
    if (::rename(temporary_.c_str(), path_.c_str()) != 0)
        throw std::runtime_error("cannot write " + path_ + osReason(errno));
    committed_ = true;
    std::string folder = std::filesystem::path(path_).parent_path().string();
    syncPath(folder.empty() ? "." : folder, O_RDONLY | O_DIRECTORY); // best effort: the data is already safe
}

void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
    OutputFile file(path);
    write(file.stream());
    file.commit();
}

void writeFileAtomically(const std::string& path, const std::string& text) {
    writeFileAtomically(path, [&](std::ostream& out) { out << text; });
}

bool isOutputTemporary(const std::string& fileName) { return fileName.find(kTemporaryMarker) != std::string::npos; }

} // namespace gpurec
