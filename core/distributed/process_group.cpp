#include "distributed/process_group.hpp"

#include "run/interruption.hpp"

#include <cstring>

namespace gpurec {

std::string errorText(const std::exception_ptr& failure) {
    try {
        std::rethrow_exception(failure);
    } catch (const std::exception& e) {
        return e.what();
    } catch (...) {
        return "unknown error";
    }
}

void ProcessGroup::agree(const std::exception_ptr& failure) {
    // The lowest failing rank has the largest size() - rank.
    const std::array<int, 2> agreed = maxOf({failure ? size() - rank() : 0, receivedInterruption()});
    agreeOnInterruption(agreed[1]);
    if (agreed[0] == 0) return;
    if (size() == 1) std::rethrow_exception(failure);
    const int failed = size() - agreed[0];
    std::string message = failed == rank() ? errorText(failure) : std::string();
    broadcastBytes(message, failed);
    throw GroupFailure(
        message + " (process " + std::to_string(failed) + " of " + std::to_string(size()) + ")", failed);
}

std::vector<std::string> ProcessGroup::allGather(const std::string& mine, const std::exception_ptr& failure) {
    agree(failure);
    return gatherBytes(mine, 0, true);
}

std::vector<std::string> ProcessGroup::gather(const std::string& mine, int root,
                                              const std::exception_ptr& failure) {
    agree(failure);
    return gatherBytes(mine, root, false);
}

std::string ProcessGroup::broadcast(const std::string& bytes, int root) {
    agree();
    std::string out = bytes;
    broadcastBytes(out, root);
    return out;
}

std::vector<double> ProcessGroup::foldInRankOrder(const std::vector<double>& rows, std::size_t rowLength) {
    agree();
    if (rowLength == 0) return {};
    std::vector<double> sum(rowLength, 0.0);
    if (rank() > 0) receiveDoubles(sum, rank() - 1);
    for (std::size_t at = 0; at + rowLength <= rows.size() && rowLength > 0; at += rowLength)
        for (std::size_t i = 0; i < rowLength; ++i)
            sum[i] += rows[at + i];
    if (rank() + 1 < size()) sendDoubles(sum, rank() + 1);
    // The last rank's sum is the total.
    std::string total(rank() + 1 == size() ? sum.size() * sizeof(double) : 0, '\0');
    if (!total.empty()) std::memcpy(total.data(), sum.data(), total.size());
    broadcastBytes(total, size() - 1);
    std::memcpy(sum.data(), total.data(), sum.size() * sizeof(double));
    return sum;
}

namespace {

class SingleProcess final : public ProcessGroup {
  public:
    int rank() const override { return 0; }
    int size() const override { return 1; }
    int hostRank() const override { return 0; }
    int hostSize() const override { return 1; }

  protected:
    std::array<int, 2> maxOf(std::array<int, 2> values) override { return values; }
    std::vector<std::string> gatherBytes(const std::string& mine, int, bool) override { return {mine}; }
    void broadcastBytes(std::string&, int) override {}
    void sendDoubles(const std::vector<double>&, int) override {}
    void receiveDoubles(std::vector<double>&, int) override {}
};

} // namespace

std::unique_ptr<ProcessGroup> singleProcess() {
    return std::make_unique<SingleProcess>();
}

} // namespace gpurec
