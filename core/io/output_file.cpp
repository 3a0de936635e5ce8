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

std::string osReason(int err) {
    return err ? std::string(": ") + std::strerror(err) : std::string();
}

std::string temporaryName(const std::string& path) {
    std::filesystem::path p(path);
    return (p.parent_path() / (p.filename().string() + kTemporaryMarker + std::to_string(::getpid())))
        .string();
}

int openTemporary(const std::string& temporary, const std::string& path) {
    int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error("cannot write " + path + osReason(errno));
    return fd;
}
} // namespace

DescriptorBuffer::DescriptorBuffer(int fd) : fd_(fd), buffer_(1 << 16) {
    setp(buffer_.data(), buffer_.data() + buffer_.size());
}

bool DescriptorBuffer::drain() {
    const char* next = pbase();
    while (!error_ && next < pptr()) {
        ssize_t written = ::write(fd_, next, static_cast<std::size_t>(pptr() - next));
        if (written < 0 && errno == EINTR) continue;
        if (written < 0)
            error_ = errno;
        else
            next += written;
    }
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return !error_;
}

DescriptorBuffer::int_type DescriptorBuffer::overflow(int_type c) {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) sputc(traits_type::to_char_type(c));
    return traits_type::not_eof(c);
}

int DescriptorBuffer::sync() {
    return drain() ? 0 : -1;
}

OutputFile::OutputFile(std::string path)
    : path_(std::move(path)), temporary_(temporaryName(path_)), fd_(openTemporary(temporary_, path_)),
      buffer_(fd_), stream_(&buffer_) {}

OutputFile::~OutputFile() {
    if (committed_) return;
    closeDescriptor();
    ::unlink(temporary_.c_str());
}

void OutputFile::closeDescriptor() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

void OutputFile::commit() {
    stream_.flush();
    int err = buffer_.error();
    if (!err && ::fsync(fd_) != 0) err = errno;
    if (::close(fd_) != 0 && !err) err = errno; // NFS and some file systems report write errors here
    fd_ = -1;
    if (err || !stream_) throw std::runtime_error("cannot write " + path_ + osReason(err));
    if (::rename(temporary_.c_str(), path_.c_str()) != 0)
        throw std::runtime_error("cannot write " + path_ + osReason(errno));
    committed_ = true;
    std::string folder = std::filesystem::path(path_).parent_path().string();
    // Best effort: the data is already safe; this makes the new name itself durable.
    int dir = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
        ::fsync(dir);
        ::close(dir);
    }
}

void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
    OutputFile file(path);
    write(file.stream());
    file.commit();
}

void writeFileAtomically(const std::string& path, const std::string& text) {
    writeFileAtomically(path, [&](std::ostream& out) { out << text; });
}

bool isOutputTemporary(const std::string& fileName) {
    return fileName.find(kTemporaryMarker) != std::string::npos;
}

} // namespace gpurec
