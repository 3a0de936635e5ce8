#include "distributed/distributed_load.hpp"

#include "data/family_trimming.hpp"
#include "data/origination.hpp"
#include "distributed/family_partition.hpp"
#include "distributed/wire.hpp"
#include "engine/family_chunks.hpp"

#include <filesystem>
#include <omp.h>

namespace gpurec {

namespace {

// What the other processes learn of a family one process read.
void writeShell(ByteWriter& out, const GeneFamily& f) {
    out.text(f.name);
    out.text(f.geneTreePath);
    out.text(f.mappingPath);
    out.values(f.geneSpecies);
    out.value(f.coveredSpecies);
    out.value(CladeSizes{f.geneCount(), f.cladeCount(), f.splitCount()});
}

GeneFamily readShell(ByteReader& in) {
    GeneFamily f;
    f.name = in.text();
    f.geneTreePath = in.text();
    f.mappingPath = in.text();
    f.geneSpecies = in.values<int>();
    f.coveredSpecies = in.value<int>();
    f.remoteSizes = in.value<CladeSizes>();
    return f;
}

// The estimate the gene-tree files are shared out by before they are read: their sizes (one byte
// more, so that a missing file counts too).
std::vector<double> fileSizes(ProcessGroup& group, const std::vector<FamilyInput>& inputs) {
    const std::vector<int> even =
        balancedRanges(std::vector<double>(inputs.size(), 1.0), 1, group.size(), false);
    std::vector<double> mine;
    for (int i = even[group.rank()]; i < even[group.rank() + 1]; ++i) {
        std::error_code error;
        const auto bytes = std::filesystem::file_size(inputs[i].geneTreePath, error);
        mine.push_back(error ? 1.0 : static_cast<double>(bytes) + 1.0);
    }
    ByteWriter out;
    out.values(mine);
    std::vector<double> all;
    for (const std::string& part : group.allGather(out.bytes())) {
        ByteReader in(part);
        const std::vector<double> sizes = in.values<double>();
        all.insert(all.end(), sizes.begin(), sizes.end());
    }
    return all;
}

// Reads the families at `indices` of `families` (each read once already, by another process).
void readAgain(const SpeciesTree& species, std::vector<GeneFamily>& families, const std::vector<int>& indices,
               const LoadOptions& options) {
    const int count = static_cast<int>(indices.size());
    std::vector<std::exception_ptr> failure(count);
    const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic) num_threads(threads)
    for (int i = 0; i < count; ++i) {
        GeneFamily& f = families[indices[i]];
        try {
            FamilyInput input{f.name, f.geneTreePath, f.mappingPath, "", 0, std::nullopt};
            GeneFamily read = prepareFamily(species, input, options.rooting, options.ccpSampleFrequency);
            read.holder = f.holder;
            f = std::move(read);
        } catch (...) {
            failure[i] = std::current_exception();
        }
    }
    for (const std::exception_ptr& e : failure)
        if (e) std::rethrow_exception(e);
}

} // namespace

LoadedInput loadAcross(ProcessGroup& group, const InputPaths& paths, TransferConstraint constraint,
                       const LoadOptions& options) {
    checkFilterOptions(options);
    InputList list = readInputList(paths, constraint, options);
    Dataset& data = *list.dataset;
    const int me = group.rank();

    // Read this process's share of the files.
    const std::vector<int> share = balancedRanges(fileSizes(group, list.families), 1, group.size(), false);
    LoadReport mine;
    std::exception_ptr failure;
    try {
        mine = prepareFamilies(data.species,
                               {list.families.begin() + share[me], list.families.begin() + share[me + 1]},
                               options);
    } catch (...) {
        failure = std::current_exception();
    }
    ByteWriter out;
    out.value(static_cast<long long>(mine.families.size()));
    for (const GeneFamily& f : mine.families)
        writeShell(out, f);
    out.value(static_cast<long long>(mine.errors.size()));
    for (const FamilyProblem& p : mine.errors)
        write(out, p);

    // Every family in input order (this process's own as read, the others' shells), then the
    // filters exactly as one process applies them.
    LoadReport all;
    const std::vector<std::string> parts = group.allGather(out.bytes(), failure);
    for (int from = 0; from < group.size(); ++from) {
        ByteReader in(parts[from]);
        const auto families = in.value<long long>();
        for (long long k = 0; k < families; ++k) {
            GeneFamily shell = readShell(in);
            all.families.push_back(from == me ? std::move(mine.families[k]) : std::move(shell));
            const GeneFamily& f = all.families.back();
            all.dimensions.push_back({f.name, f.geneCount(), f.cladeCount()});
        }
        const auto errors = in.value<long long>();
        for (long long k = 0; k < errors; ++k)
            all.errors.push_back(readFamilyProblem(in));
    }
    filterFamilies(all.families, options, all.excluded);

    // Place the kept families; read those placed here that another process read.
    std::vector<double> costs;
    for (const GeneFamily& f : all.families)
        costs.push_back(familyCost(f));
    const int chunk =
        sharedGradientChunk(static_cast<int>(costs.size()), data.species.size(),
                            options.origination == Origination::Optimize, options.pruneSpeciesTree);
    const std::vector<int> holders = holdersOf(balancedRanges(costs, chunk, group.size(), true));
    std::vector<int> toRead;
    for (std::size_t f = 0; f < all.families.size(); ++f) {
        GeneFamily& family = all.families[f];
        family.holder = holders[f];
        if (holders[f] != me)
            leaveToHolder(family);
        else if (family.remoteSizes)
            toRead.push_back(static_cast<int>(f));
    }
    failure = nullptr;
    try {
        readAgain(data.species, all.families, toRead, options);
    } catch (...) {
        failure = std::current_exception();
    }
    group.agree(failure);
    data.families = std::move(all.families);
    applyOrigination(data, options.origination);
    return {list.dataset, std::move(all.excluded), std::move(all.errors), std::move(all.dimensions),
            std::move(list.warnings)};
}

} // namespace gpurec
