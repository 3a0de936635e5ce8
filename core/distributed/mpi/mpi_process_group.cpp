// The process group over MPI (mpi_process_group.hpp): the only file that calls MPI.
#include "distributed/mpi/mpi_process_group.hpp"

#include <climits>
#include <cstdlib>
#include <mpi.h>
#include <stdexcept>

namespace gpurec {

namespace {

// MPI counts are ints: larger messages travel in pieces of this many bytes.
constexpr long long kPiece = INT_MAX / 2;

bool startedByMpiLauncher() {
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
        if (std::getenv(name)) return true;
    return false;
}

class MpiGroup final : public ProcessGroup {
  public:
    MpiGroup() {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
        MPI_Comm_size(MPI_COMM_WORLD, &size_);
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &host_);
        MPI_Comm_rank(host_, &hostRank_);
        MPI_Comm_size(host_, &hostSize_);
    }
    MpiGroup(const MpiGroup&) = delete;
    MpiGroup& operator=(const MpiGroup&) = delete;
    ~MpiGroup() override {
        MPI_Comm_free(&host_);
        MPI_Finalize();
    }

    int rank() const override { return rank_; }
    int size() const override { return size_; }
    int hostRank() const override { return hostRank_; }
    int hostSize() const override { return hostSize_; }

  protected:
    std::array<int, 2> maxOf(std::array<int, 2> values) override {
        std::array<int, 2> out{};
        MPI_Allreduce(values.data(), out.data(), 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        return out;
    }

    std::vector<std::string> gatherBytes(const std::string& mine, int root, bool everywhere) override {
        // The lengths first, then each process's bytes broadcast from it (or sent to the root) in
        // pieces: no count or displacement overflows an int whatever the total.
        const long long length = static_cast<long long>(mine.size());
        std::vector<long long> lengths(size_);
        MPI_Allgather(&length, 1, MPI_LONG_LONG, lengths.data(), 1, MPI_LONG_LONG, MPI_COMM_WORLD);
        std::vector<std::string> out(everywhere || rank_ == root ? size_ : 0);
        for (int from = 0; from < size_; ++from) {
            std::string bytes =
                from == rank_ ? mine : std::string(static_cast<std::size_t>(lengths[from]), '\0');
            if (everywhere) {
                broadcastPieces(bytes, from);
            } else if (from != root) {
                if (rank_ == from) sendPieces(bytes, root);
                if (rank_ == root) receivePieces(bytes, from);
            }
            if (!out.empty()) out[from] = std::move(bytes);
        }
        return out;
    }

    void broadcastBytes(std::string& bytes, int root) override {
        long long length = static_cast<long long>(bytes.size());
        MPI_Bcast(&length, 1, MPI_LONG_LONG, root, MPI_COMM_WORLD);
        bytes.resize(static_cast<std::size_t>(length));
        broadcastPieces(bytes, root);
    }

    void sendDoubles(const std::vector<double>& values, int to) override {
        MPI_Send(values.data(), static_cast<int>(values.size()), MPI_DOUBLE, to, 0, MPI_COMM_WORLD);
    }

    void receiveDoubles(std::vector<double>& values, int from) override {
        MPI_Recv(values.data(), static_cast<int>(values.size()), MPI_DOUBLE, from, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    }

  private:
    template <class Step> static void inPieces(std::string& bytes, const Step& step) {
        for (long long at = 0; at < static_cast<long long>(bytes.size()); at += kPiece)
            step(bytes.data() + at,
                 static_cast<int>(std::min(kPiece, static_cast<long long>(bytes.size()) - at)));
    }
    void broadcastPieces(std::string& bytes, int root) {
        inPieces(bytes, [&](char* p, int n) { MPI_Bcast(p, n, MPI_CHAR, root, MPI_COMM_WORLD); });
    }
    void sendPieces(std::string& bytes, int to) {
        inPieces(bytes, [&](char* p, int n) { MPI_Send(p, n, MPI_CHAR, to, 1, MPI_COMM_WORLD); });
    }
    void receivePieces(std::string& bytes, int from) {
        inPieces(bytes, [&](char* p, int n) {
            MPI_Recv(p, n, MPI_CHAR, from, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        });
    }

    int rank_ = 0, size_ = 1, hostRank_ = 0, hostSize_ = 1;
    MPI_Comm host_ = MPI_COMM_NULL;
};

} // namespace

std::unique_ptr<ProcessGroup> startProcessGroup(int& argc, char**& argv) {
    if (!startedByMpiLauncher()) return singleProcess();
    int provided = 0;
    // Only the main thread calls MPI (OpenMP threads never do).
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    if (provided < MPI_THREAD_FUNNELED) {
        MPI_Finalize();
        throw std::runtime_error("the MPI library does not support MPI_THREAD_FUNNELED");
    }
    return std::make_unique<MpiGroup>();
}

bool builtWithMpi() {
    return true;
}

} // namespace gpurec
