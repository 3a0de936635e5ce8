#pragma once
// An error in user input, located by file, line and column (1-based; 0 = unknown).
#include <stdexcept>
#include <string>

namespace gpurec {

// Control bytes written visibly ("\0", "\t", "\x01"), so that a NUL byte in a label or a path
// cannot cut an error message short where it is printed as a C string.
std::string escapeControlBytes(const std::string& text);

// The problem text is kept with its control bytes escaped.
class InputError : public std::runtime_error {
  public:
    InputError(std::string file, int line, int column, const std::string& problem);
    const std::string& file() const { return file_; }
    int line() const { return line_; }
    int column() const { return column_; }
    const std::string& problem() const { return problem_; }

  private:
    std::string file_;
    int line_;
    int column_;
    std::string problem_;
};

} // namespace gpurec
