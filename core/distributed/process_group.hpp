#pragma once
// The processes of a run spread over several (`mpirun -np N gpurec ...`): their ranks and the few
// collective operations the distributed engine needs. Every process runs the same command; each
// holds a share of the families (distributed_load.hpp), and the collectives give all of them the
// same results, so that they take the same steps.
//
// Every collective begins with an agreement (agree()): whether a process failed, and the signal any
// of them received. A process that fails anywhere -- reading its families, out of memory, writing
// an output -- takes part in the next agreement with its error instead of its data (the CLI's main
// does it for errors no collective caught), and every process then throws that error: no process
// waits for one that has stopped. A signal stops them all at the same point
// (run/interruption.hpp: the processes act on agreed signals only).
//
// The transport is MPI where the program was started by an MPI launcher (mpi/mpi_process_group.hpp,
// built when CMake finds MPI); one process alone otherwise.
#include <array>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpurec {

// The error of the process that failed (the lowest rank when several did), thrown on every process.
class GroupFailure : public std::runtime_error {
  public:
    GroupFailure(const std::string& message, int failedRank)
        : std::runtime_error(message), failedRank_(failedRank) {}
    int failedRank() const { return failedRank_; }

  private:
    int failedRank_;
};

class ProcessGroup {
  public:
    virtual ~ProcessGroup() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    // This process's rank among the group's processes on its host, and their number: which GPU of
    // the host it takes.
    virtual int hostRank() const = 0;
    virtual int hostSize() const = 0;

    // Agrees on failures and signals: throws on every process when `failure` is set on one of them
    // (GroupFailure, whose message names the failing process; in a group of one, the failure
    // itself), and hands the largest signal any process has received to agreeOnInterruption.
    void agree(const std::exception_ptr& failure = nullptr);
    // Every process's `mine`, in rank order, on every process.
    std::vector<std::string> allGather(const std::string& mine, const std::exception_ptr& failure = nullptr);
    // Every process's `mine` in rank order on `root`; nothing elsewhere.
    std::vector<std::string> gather(const std::string& mine, int root,
                                    const std::exception_ptr& failure = nullptr);
    // `root`'s bytes on every process.
    std::string broadcast(const std::string& bytes, int root);
    // The sum of the rows of every process, rank after rank and each process's rows in order, of
    // `rowLength` values each (`rows` holds whole rows): the left fold one process would take over
    // all of them, on every process. Bytes exchanged: two sums per process along the ranks, and
    // the total from the last rank to all.
    std::vector<double> foldInRankOrder(const std::vector<double>& rows, std::size_t rowLength);

  protected:
    // The transport, without agreement.
    virtual std::array<int, 2> maxOf(std::array<int, 2> values) = 0;
    virtual std::vector<std::string> gatherBytes(const std::string& mine, int root, bool everywhere) = 0;
    virtual void broadcastBytes(std::string& bytes, int root) = 0;
    virtual void sendDoubles(const std::vector<double>& values, int to) = 0;
    virtual void receiveDoubles(std::vector<double>& values, int from) = 0;
};

// This process alone.
std::unique_ptr<ProcessGroup> singleProcess();

// The error of an exception, in words ("unknown error" for what is not a std::exception).
std::string errorText(const std::exception_ptr& failure);

} // namespace gpurec
