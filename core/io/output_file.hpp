#pragma once
// Crash-safe output: a file appears under its final name only when it is complete. Bytes go to a
// temporary file in the same folder (so the rename cannot cross file systems); commit() checks the
// stream, fsyncs the file, renames it over the final name and fsyncs the folder. A file never
// committed (an exception, a signal that ends the process) leaves the final name untouched.
#include <functional>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

namespace gpurec {

// A buffered stream over a POSIX file descriptor that remembers the first write error (errno), so
// that "disk full" or "file too large" is reported as such.
class DescriptorBuffer : public std::streambuf {
  public:
    explicit DescriptorBuffer(int fd);
    int error() const { return error_; }

  protected:
    int_type overflow(int_type c) override;
    int sync() override;

  private:
    bool drain();
    int fd_, error_ = 0;
    std::vector<char> buffer_;
};

class OutputFile {
  public:
    explicit OutputFile(std::string path);
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;
    ~OutputFile(); // removes the temporary file unless commit() succeeded

    std::ostream& stream() { return stream_; }
    const std::string& path() const { return path_; }
    // Throws std::runtime_error naming the final path (and the OS reason: disk full, ...) on failure.
    void commit();

  private:
    void closeDescriptor();
    std::string path_, temporary_;
    int fd_ = -1;
    DescriptorBuffer buffer_;
    std::ostream stream_;
    bool committed_ = false;
};

// Writes the whole file through OutputFile: write() fills the stream, then it is committed.
void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write);
void writeFileAtomically(const std::string& path, const std::string& text);

// Temporary files this process left behind in a folder (after a crash of an earlier run) are
// recognised by this marker in their name.
bool isOutputTemporary(const std::string& fileName);

} // namespace gpurec
