#include "distributed/distributed_sampling.hpp"

#include "distributed/wire.hpp"
#include "run/interruption.hpp"

#include <algorithm>
#include <mutex>

namespace gpurec {

void sampleAcross(ProcessGroup& group, const Dataset& data, const RateParameters& theta,
                  const std::vector<int>& families, const SamplingSettings& settings,
                  const std::function<void(FamilySamples&&)>& consume, LikelihoodBackend& backend,
                  SampleDelivery delivery, bool stopOnSignal) {
    // Every process knows every family's holder, so all count the same rounds.
    std::vector<std::vector<int>> held(group.size());
    for (int f : families)
        held.at(data.families.at(f).holder).push_back(f);
    std::size_t rounds = 0;
    for (const std::vector<int>& h : held)
        rounds = std::max(rounds, (h.size() + kSamplingGroup - 1) / kSamplingGroup);
    const std::vector<int>& mine = held[group.rank()];
    const bool receives = delivery == SampleDelivery::EveryProcess || group.rank() == 0;
    for (std::size_t round = 0; round < rounds; ++round) {
        const std::size_t begin = std::min(mine.size(), round * kSamplingGroup);
        const std::vector<int> part(
            mine.begin() + static_cast<std::ptrdiff_t>(begin),
            mine.begin() + static_cast<std::ptrdiff_t>(std::min(mine.size(), begin + kSamplingGroup)));
        std::vector<FamilySamples> sampled;
        std::mutex guard;
        std::exception_ptr failure;
        try {
            sampleFamilies(
                data, theta, part, settings,
                [&](FamilySamples&& s) {
                    const std::lock_guard lock(guard);
                    sampled.push_back(std::move(s));
                },
                backendTables(backend, theta, settings));
        } catch (...) {
            failure = std::current_exception();
        }
        ByteWriter out;
        out.value(static_cast<long long>(sampled.size()));
        for (const FamilySamples& s : sampled)
            write(out, s);
        sampled.clear();
        const std::vector<std::string> parts = delivery == SampleDelivery::EveryProcess
                                                   ? group.allGather(out.bytes(), failure)
                                                   : group.gather(out.bytes(), 0, failure);
        if (stopOnSignal) throwIfInterrupted();
        if (!receives) continue;
        for (const std::string& bytes : parts) {
            ByteReader in(bytes);
            const auto count = in.value<long long>();
            for (long long k = 0; k < count; ++k)
                consume(readFamilySamples(in));
        }
    }
}

} // namespace gpurec
