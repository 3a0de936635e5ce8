#pragma once
// The bytes processes of a distributed run exchange (core/distributed): plain values, strings and
// vectors of them, in this machine's representation (the processes run one build, so doubles travel
// bit for bit), and the engine's records that cross between processes.
#include "data/dataset.hpp"
#include "engine/backend.hpp"
#include "recon/sampling_run.hpp"

#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace gpurec {

class ByteWriter {
  public:
    template <class T> void value(const T& v) {
        static_assert(std::is_trivially_copyable_v<T>);
        bytes_.append(reinterpret_cast<const char*>(&v), sizeof v);
    }
    template <class T> void values(const std::vector<T>& v) {
        static_assert(std::is_trivially_copyable_v<T>);
        value(static_cast<long long>(v.size()));
        bytes_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
    }
    void text(const std::string& s) {
        value(static_cast<long long>(s.size()));
        bytes_ += s;
    }
    const std::string& bytes() const { return bytes_; }

  private:
    std::string bytes_;
};

// Reads what a ByteWriter wrote, in the same order; throws std::runtime_error past the end.
class ByteReader {
  public:
    explicit ByteReader(const std::string& bytes) : bytes_(bytes) {}
    template <class T> T value() {
        static_assert(std::is_trivially_copyable_v<T>);
        T v;
        std::memcpy(&v, take(sizeof v), sizeof v);
        return v;
    }
    template <class T> std::vector<T> values() {
        const auto n = count(sizeof(T));
        std::vector<T> v(n);
        if (n > 0) std::memcpy(v.data(), take(n * sizeof(T)), n * sizeof(T));
        return v;
    }
    std::string text() {
        const auto n = count(1);
        return {take(n), n};
    }
    bool atEnd() const { return at_ == bytes_.size(); }

  private:
    std::size_t count(std::size_t elementSize) {
        const auto n = value<long long>();
        if (n < 0 || static_cast<std::size_t>(n) > (bytes_.size() - at_) / elementSize)
            throw std::runtime_error("a message between processes is truncated");
        return static_cast<std::size_t>(n);
    }
    const char* take(std::size_t n) {
        if (n > bytes_.size() - at_) throw std::runtime_error("a message between processes is truncated");
        const char* p = bytes_.data() + at_;
        at_ += n;
        return p;
    }
    const std::string& bytes_;
    std::size_t at_ = 0;
};

void write(ByteWriter& out, const SolverStats& stats);
SolverStats readSolverStats(ByteReader& in);
void write(ByteWriter& out, const FamilyProblem& problem);
FamilyProblem readFamilyProblem(ByteReader& in);
void write(ByteWriter& out, const FamilySamples& samples);
FamilySamples readFamilySamples(ByteReader& in);

} // namespace gpurec
