// The distributed engine (core/distributed) with ranks as threads of this process (thread_ranks.hpp):
// evaluations bit for bit those of one process in every rate mode, for 2 and 3 ranks, at the
// engine's chunking and at chunks of several families; tables, candidate trees, sampling and
// loading as in one process; a failure or a signal on one rank reaching every rank. The real
// `gpurec` under mpirun is test_mpi_cli's.
#include "data/family_trimming.hpp"
#include "data/origination.hpp"
#include "distributed/distributed_backend.hpp"
#include "distributed/distributed_load.hpp"
#include "distributed/distributed_sampling.hpp"
#include "distributed/family_partition.hpp"
#include "engine/backend_factory.hpp"
#include "engine/family_chunks.hpp"
#include "engine/species_pruning.hpp"
#include "forwarding_backend.hpp"
#include "run/interruption.hpp"
#include "simulated_data.hpp"
#include "support.hpp"
#include "thread_ranks.hpp"

#include <QtTest>
#include <csignal>
#include <cstring>
#include <map>
#include <mutex>
#include <numeric>
#include <random>

using namespace gpurec;
using namespace gpurec::test;

namespace {

// Small families on a small tree: many of them, so that sums over families show any change of order.
std::shared_ptr<Dataset> smallFamilies(Origination origination = Origination::Uniform, int categories = 1,
                                       bool highways = false, bool pruned = false) {
    std::shared_ptr<Dataset> data = simulatedDataset(
        simulatedSpeciesTree(10, 5), 48,
        [](int e) {
            return Rates{0.1 + 0.01 * (e % 3), 0.2, 0.1};
        },
        11);
    applyOrigination(*data, origination);
    data->speciationCategories = categories;
    if (highways) {
        data->highways = someHighways(data->species);
        data->highwayRates.assign(data->highways.size(), 0.05);
    }
    data->pruneSpeciesTree = pruned; // most of these families miss some species
    return data;
}

SolverOptions oneThread() {
    SolverOptions options;
    options.threads = 1; // the ranks are the threads here
    return options;
}

// θ with every entry its own, so that any mix-up of rows shows.
RateParameters thetaFor(const std::string& mode, const Dataset& data, unsigned seed) {
    const RateMode rates = mode.rfind("specieswise", 0) == 0 ? RateMode::Specieswise
                           : mode.rfind("genewise", 0) == 0  ? RateMode::Genewise
                                                             : RateMode::Global;
    RateParameters theta(rates, data.species.size(), static_cast<int>(data.families.size()), Rates{});
    if (data.origination == Origination::Optimize) theta.addOriginationPerNode(1.0);
    if (!data.highways.empty()) theta.addHighways(static_cast<int>(data.highways.size()), 0.05);
    if (data.speciationCategories > 1) theta.addSpeciationShape(0.7);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> log2Rate(-6.0, -1.0);
    for (double& t : theta.theta())
        t = log2Rate(rng);
    if (data.speciationCategories > 1) theta.theta().back() = std::log2(0.7);
    return theta;
}

std::unique_ptr<LikelihoodBackend> cpuOn(std::shared_ptr<const Dataset> data) {
    return selectBackend("cpu", data, {}).backend;
}

// Everything an evaluation reports but its wall time, as bytes.
std::string reported(const Evaluation& e) {
    std::string out;
    const auto add = [&out](const void* p, std::size_t n) { out.append(static_cast<const char*>(p), n); };
    add(e.logLikelihood.data(), e.logLikelihood.size() * sizeof(double));
    add(&e.totalLogLikelihood, sizeof(double));
    add(&e.totalNllBits, sizeof(double));
    add(e.gradient.data(), e.gradient.size() * sizeof(double));
    const SolverStats& s = e.stats;
    const long counts[] = {s.eIterations,        s.piIterations,         s.maxPiIterations,
                           s.bicgstabIterations, s.bicgstabBreakdowns,   s.prunedClades,
                           s.eEarly.solves,      s.eEarly.families,      s.piEarly.solves,
                           s.piEarly.families,   s.bicgstabEarly.solves, s.bicgstabEarly.families};
    add(counts, sizeof counts);
    add(&s.eResidual, sizeof(double));
    return out;
}

// The evaluations every test compares: two with a gradient (the second from warm starts), one without.
std::string evaluations(LikelihoodBackend& backend, const RateParameters& a, const RateParameters& b) {
    const SolverOptions options = oneThread();
    return reported(backend.evaluate(a, options, true)) + reported(backend.evaluate(b, options, true)) +
           reported(backend.evaluate(a, options, false));
}

// The families' holders when `ranks` processes share `data` in chunks of `chunk`.
std::vector<int> holdersFor(const Dataset& data, int ranks, int chunk) {
    std::vector<double> costs;
    for (const GeneFamily& f : data.families)
        costs.push_back(familyCost(f));
    return holdersOf(balancedRanges(costs, chunk, ranks, true));
}

// Each rank's results of `work` on a distributed backend over `data` spread on `ranks` ranks.
std::vector<std::string> onRanks(const Dataset& data, int ranks, int chunk,
                                 const std::function<std::string(LikelihoodBackend&, ProcessGroup&)>& work,
                                 const LocalBackendFactory& makeLocal = cpuOn) {
    const std::vector<int> holders = holdersFor(data, ranks, chunk > 0 ? chunk : 1);
    std::vector<std::string> results(ranks);
    ThreadRanks group(ranks);
    const std::vector<std::string> errors = group.run([&](ProcessGroup& g) {
        auto seen = std::make_shared<const Dataset>(placeFamilies(data, holders, g.rank()));
        std::unique_ptr<LikelihoodBackend> backend = makeDistributedBackend(g, seen, makeLocal, chunk);
        results[g.rank()] = work(*backend, g);
    });
    for (const std::string& e : errors)
        if (!e.empty()) throw std::runtime_error(e);
    return results;
}

// A backend that sums its own share's gradient only (joinShares declined).
using WithoutShares = ForwardingBackend;

bool sameBits(double a, double b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

void compareCladeSets(const CladeSet& a, const CladeSet& b) {
    QCOMPARE(a.geneNames, b.geneNames);
    QCOMPARE(a.cladeSize, b.cladeSize);
    QCOMPARE(a.splitOffset, b.splitOffset);
    QCOMPARE(a.splits.size(), b.splits.size());
    for (std::size_t i = 0; i < a.splits.size(); ++i) {
        QCOMPARE(a.splits[i].left, b.splits[i].left);
        QCOMPARE(a.splits[i].right, b.splits[i].right);
        QVERIFY(sameBits(a.splits[i].weight, b.splits[i].weight));
    }
}

std::string problems(const std::vector<FamilyProblem>& list) {
    std::string out;
    for (const FamilyProblem& p : list)
        out += p.family + "|" + p.message + "|" + p.file + "|" + std::to_string(p.line) + "|" +
               std::to_string(p.column) + "|" + p.reason + "|" + p.filter + "\n";
    return out;
}

} // namespace

class TestDistributed : public QObject {
    Q_OBJECT
  private slots:
    void rangesAreBalancedAtChunkBoundaries() {
        // Costs 1..12 in chunks of 2: the cuts fall between chunks, near a third of 78 each.
        std::vector<double> costs;
        for (int i = 1; i <= 12; ++i)
            costs.push_back(i);
        QCOMPARE(balancedRanges(costs, 2, 3, true), (std::vector<int>{0, 6, 10, 12}));
        QCOMPARE(balancedRanges(costs, 1, 3, true), (std::vector<int>{0, 7, 10, 12}));
        QCOMPARE(holdersOf({0, 2, 3}), (std::vector<int>{0, 0, 1}));
        // More ranks than items: empty ranges where allowed, a clear refusal where not.
        QCOMPARE(balancedRanges({5.0, 5.0}, 1, 3, false), (std::vector<int>{0, 1, 1, 2}));
        try {
            balancedRanges(costs, 5, 4, true);
            QFAIL("4 ranks for 3 chunks were accepted");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(std::string(e.what()).find("run at most 3 processes") != std::string::npos, e.what());
        }
    }

    void evaluationsAreOneProcesssBitForBit_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<int>("chunk");
        for (const char* mode :
             {"global", "specieswise", "genewise", "global+origins", "specieswise+origins", "global+gamma",
              "global+highways", "specieswise+highways", "genewise+highways", "global+pruned",
              "specieswise+pruned", "genewise+pruned", "specieswise+origins+pruned"})
            for (int chunk : {0, 4}) // 0: the engine's chunking (one family here)
                QTest::newRow((std::string(mode) + " chunk " + std::to_string(chunk)).c_str())
                    << QString(mode) << chunk;
    }

    // 2 and 3 ranks give the bits of one: one process's own backend at the engine's chunking, one
    // rank at the same forced chunking otherwise (the sums of whole chunks are what is shared out).
    void evaluationsAreOneProcesssBitForBit() {
        QFETCH(QString, mode);
        QFETCH(int, chunk);
        const std::string m = mode.toStdString();
        const std::shared_ptr<const Dataset> data = smallFamilies(
            m.find("origins") != std::string::npos ? Origination::Optimize : Origination::Uniform,
            m.find("gamma") != std::string::npos ? 2 : 1, m.find("highways") != std::string::npos,
            m.find("pruned") != std::string::npos);
        if (data->pruneSpeciesTree) QVERIFY(FamilyLayouts(*data).layouts.size() > 4);
        const RateParameters a = thetaFor(m, *data, 1), b = thetaFor(m, *data, 2);
        const auto work = [&](LikelihoodBackend& backend, ProcessGroup&) {
            return evaluations(backend, a, b);
        };
        std::unique_ptr<LikelihoodBackend> one = cpuOn(data);
        std::string reference = evaluations(*one, a, b);
        if (chunk > 0) {
            const std::string chunked = onRanks(*data, 1, chunk, work).front();
            // Shared gradients summed in chunks of several families have bits of their own.
            if (m.rfind("genewise", 0) != 0) QVERIFY(chunked != reference);
            reference = chunked;
        }
        for (int ranks : {2, 3})
            for (const std::string& result : onRanks(*data, ranks, chunk, work))
                QVERIFY2(result == reference, (std::to_string(ranks) + " ranks differ from one").c_str());
    }

    // A backend that keeps its sums to itself (the CUDA backend): the ranks' gradients are added in
    // rank order, the same on every rank, within rounding of one process's.
    void backendsWithoutSharesAddTheirGradients_data() {
        QTest::addColumn<QString>("mode");
        QTest::newRow("specieswise") << "specieswise";
        QTest::newRow("genewise+highways") << "genewise+highways"; // the highways' rates: added too
    }

    void backendsWithoutSharesAddTheirGradients() {
        QFETCH(QString, mode);
        const std::string m = mode.toStdString();
        const std::shared_ptr<const Dataset> data =
            smallFamilies(Origination::Uniform, 1, m.find("highways") != std::string::npos);
        const RateParameters theta = thetaFor(m, *data, 3);
        std::unique_ptr<LikelihoodBackend> one = cpuOn(data);
        const Evaluation reference = one->evaluate(theta, oneThread(), true);
        const std::vector<std::string> results = onRanks(
            *data, 3, 0,
            [&](LikelihoodBackend& backend, ProcessGroup&) {
                const Evaluation e = backend.evaluate(theta, oneThread(), true);
                for (std::size_t f = 0; f < e.logLikelihood.size(); ++f)
                    if (!sameBits(e.logLikelihood[f], reference.logLikelihood[f])) return std::string("ll");
                for (std::size_t i = 0; i < e.gradient.size(); ++i)
                    if (relativeError(e.gradient[i], reference.gradient[i]) > 1e-9)
                        return std::string("gradient");
                return reported(e);
            },
            [](std::shared_ptr<const Dataset> own) {
                return std::make_unique<WithoutShares>(cpuOn(std::move(own)));
            });
        QVERIFY2(results[0] != "ll" && results[0] != "gradient", results[0].c_str());
        QCOMPARE(results[1], results[0]);
        QCOMPARE(results[2], results[0]);
    }

    // The sampler's tables come from the family's holder, exactly as one process computes them; a
    // family held elsewhere is refused.
    void tablesComeFromTheHolder() {
        const std::shared_ptr<const Dataset> data = smallFamilies();
        const RateParameters theta = thetaFor("genewise", *data, 4);
        std::unique_ptr<LikelihoodBackend> one = cpuOn(data);
        const std::vector<int> holders = holdersFor(*data, 2, 1);
        onRanks(*data, 2, 0, [&](LikelihoodBackend& backend, ProcessGroup& g) {
            const int own =
                static_cast<int>(std::find(holders.begin(), holders.end(), g.rank()) - holders.begin());
            const int other =
                static_cast<int>(std::find(holders.begin(), holders.end(), 1 - g.rank()) - holders.begin());
            const FamilyTables mine = backend.familyTables(theta, oneThread(), {own}).front();
            const FamilyTables expected = one->familyTables(theta, oneThread(), {own}).front();
            if (mine.clades.pi != expected.clades.pi || mine.E != expected.E)
                throw std::runtime_error("tables differ");
            try {
                backend.familyTables(theta, oneThread(), {other});
            } catch (const std::out_of_range&) {
                return std::string();
            }
            throw std::runtime_error("a family held elsewhere was answered");
        });
    }

    // Moved onto another species tree (the search's candidates), the ranks give one fresh backend's
    // bits there, and again after moving back.
    void movesOntoAnotherSpeciesTree() {
        const std::shared_ptr<const Dataset> data = smallFamilies();
        auto other = std::make_shared<Dataset>(*data);
        other->species = simulatedSpeciesTree(10, 6); // the same leaf names, another topology
        for (GeneFamily& f : other->families)
            for (int& e : f.geneSpecies)
                e = other->species.find(data->species.name(e));
        const RateParameters a = thetaFor("global", *data, 5), b = thetaFor("global", *data, 6);
        std::unique_ptr<LikelihoodBackend> fresh = cpuOn(other);
        const std::string there = evaluations(*fresh, a, b);
        fresh = cpuOn(data);
        const std::string here = evaluations(*fresh, a, b);
        const std::vector<int> holders = holdersFor(*data, 2, 1);
        for (const std::string& r : onRanks(*data, 2, 0, [&](LikelihoodBackend&backend, ProcessGroup&g) {
                 backend.setSpeciesTree(
                     std::make_shared<const Dataset>(placeFamilies(*other, holders, g.rank())));
                 std::string out = evaluations(backend, a, b);
                 backend.setSpeciesTree(
                     std::make_shared<const Dataset>(placeFamilies(*data, holders, g.rank())));
                 return out + evaluations(backend, a, b);
             }))
            QVERIFY(r == there + here);
    }

    // A rank whose backend fails (out of memory) stops every rank with that rank's error; families
    // placed out of rank order are refused.
    void aFailureOnOneRankStopsEveryRank() {
        const std::shared_ptr<const Dataset> data = smallFamilies();
        const RateParameters theta = thetaFor("global", *data, 7);
        const std::vector<int> holders = holdersFor(*data, 3, 1);
        ThreadRanks group(3);
        const std::vector<std::string> errors = group.run([&](ProcessGroup& g) {
            auto seen = std::make_shared<const Dataset>(placeFamilies(*data, holders, g.rank()));
            std::unique_ptr<LikelihoodBackend> backend =
                makeDistributedBackend(g, seen, [&](std::shared_ptr<const Dataset> own) {
                    std::unique_ptr<LikelihoodBackend> local = cpuOn(std::move(own));
                    if (g.rank() != 1) return local;
                    struct OutOfMemory final : LikelihoodBackend {
                        std::string name() const override { return "failing"; }
                        Evaluation evaluate(const RateParameters&, const SolverOptions&, bool,
                                            const std::vector<double>*) override {
                            throw std::runtime_error("out of device memory");
                        }
                        void clearWarmStarts() override {}
                        void replan(const BatchLimits&) override {}
                        void setSpeciesTree(std::shared_ptr<const Dataset>) override {}
                        std::string planSummary() const override { return ""; }
                        std::vector<FamilyTables> familyTables(const RateParameters&, const SolverOptions&,
                                                               const std::vector<int>&) override {
                            return {};
                        }
                    };
                    return std::unique_ptr<LikelihoodBackend>(std::make_unique<OutOfMemory>());
                });
            backend->evaluate(theta, oneThread(), true);
        });
        for (const std::string& e : errors)
            QCOMPARE(e, std::string("out of device memory (process 1 of 3)"));

        std::vector<int> unordered = holders;
        std::reverse(unordered.begin(), unordered.end());
        const std::vector<std::string> refused = ThreadRanks(2).run([&](ProcessGroup& g) {
            makeDistributedBackend(
                g, std::make_shared<const Dataset>(placeFamilies(*data, unordered, g.rank())), cpuOn);
        });
        QVERIFY2(refused[0].find("not placed on the processes in rank order") != std::string::npos,
                 refused[0].c_str());
    }

    // loadAcross gives every rank the families, exclusions, errors and dimensions of one process's
    // loadInput, each rank holding the clade sets of its range exactly as one process reads them.
    void loadingMatchesOneProcess() {
        const std::string dir = temporaryFolder("distributed_load");
        std::string families = fileText(sourcePath("samples/teaching/families.txt"));
        const std::string base = sourcePath("samples/teaching/");
        for (std::size_t at = 0; (at = families.find("gene_tree = ", at)) != std::string::npos;)
            families.insert(at += 12, base);
        families +=
            "- broken\ngene_tree = " + dir + "/broken.nwk\n- absent\ngene_tree = " + dir + "/none.nwk\n";
        writeFile(dir + "/broken.nwk", "((a,b),\n");
        writeFile(dir + "/families.txt", families);
        InputPaths paths;
        paths.speciesTree = sourcePath("samples/teaching/species.nwk");
        paths.familiesFile = dir + "/families.txt";
        LoadOptions options;
        options.threads = 1;
        options.minCoveredSpecies = 6; // exclusions by coverage
        options.trimRatio = 0.1;       // and by clade count, decided over every family
        options.origination = Origination::Lca;
        const LoadedInput one = loadInput(paths, TransferConstraint::Parents, options);
        QVERIFY(!one.excluded.empty());
        QCOMPARE(one.errors.size(), std::size_t(2));
        for (int ranks : {1, 2, 3}) {
            std::vector<LoadedInput> seen(ranks);
            ThreadRanks group(ranks);
            for (const std::string& e : group.run([&](ProcessGroup& g) {
                     seen[g.rank()] = loadAcross(g, paths, TransferConstraint::Parents, options);
                 }))
                QVERIFY2(e.empty(), e.c_str());
            for (int r = 0; r < ranks; ++r) {
                const LoadedInput& in = seen[r];
                QCOMPARE(problems(in.excluded), problems(one.excluded));
                QCOMPARE(problems(in.errors), problems(one.errors));
                QCOMPARE(in.dimensions.size(), one.dimensions.size());
                for (std::size_t i = 0; i < in.dimensions.size(); ++i) {
                    QCOMPARE(in.dimensions[i].family, one.dimensions[i].family);
                    QCOMPARE(in.dimensions[i].clades, one.dimensions[i].clades);
                }
                QCOMPARE(in.dataset->families.size(), one.dataset->families.size());
                int last = 0;
                for (std::size_t f = 0; f < one.dataset->families.size(); ++f) {
                    const GeneFamily& mine = in.dataset->families[f];
                    const GeneFamily& theirs = one.dataset->families[f];
                    QCOMPARE(mine.name, theirs.name);
                    QCOMPARE(mine.geneSpecies, theirs.geneSpecies);
                    QCOMPARE(mine.originSpecies, theirs.originSpecies);
                    QCOMPARE(mine.cladeCount(), theirs.cladeCount());
                    QCOMPARE(mine.splitCount(), theirs.splitCount());
                    QVERIFY(mine.holder >= last && mine.holder < ranks);
                    last = mine.holder;
                    QCOMPARE(mine.remoteSizes.has_value(), mine.holder != r);
                    if (mine.holder == r) compareCladeSets(mine.clades, theirs.clades);
                }
                QCOMPARE(last, ranks - 1); // every rank holds families
            }
        }
    }

    // Samples drawn across ranks are one process's draws, delivered once each to the first rank
    // (or to every rank).
    void samplesMatchOneProcess() {
        const std::shared_ptr<const Dataset> data = smallFamilies();
        const RateParameters theta = thetaFor("global", *data, 8);
        SamplingSettings settings;
        settings.samples = 3;
        settings.seed = 99;
        settings.solver = oneThread();
        std::vector<int> all(data->families.size());
        std::iota(all.begin(), all.end(), 0);
        std::map<int, FamilySamples> one;
        std::mutex guard;
        sampleFamilies(
            *data, theta, all, settings,
            [&](FamilySamples&& s) {
                const std::lock_guard lock(guard);
                one[s.family] = std::move(s);
            },
            cpuTables(data, theta, settings));
        for (SampleDelivery delivery : {SampleDelivery::FirstProcess, SampleDelivery::EveryProcess}) {
            const std::vector<std::string> checks =
                onRanks(*data, 3, 0, [&](LikelihoodBackend& backend, ProcessGroup& g) {
                    const Dataset seen = placeFamilies(*data, holdersFor(*data, 3, 1), g.rank());
                    std::map<int, FamilySamples> got;
                    sampleAcross(
                        g, seen, theta, all, settings,
                        [&](FamilySamples&& s) { got[s.family] = std::move(s); }, backend, delivery, true);
                    if (g.rank() > 0 && delivery == SampleDelivery::FirstProcess)
                        return got.empty() ? std::string() : std::string("samples on a later rank");
                    if (got.size() != one.size()) return std::string("families missing");
                    for (const auto& [f, s] : got)
                        if (s.reconciliations != one[f].reconciliations ||
                            !sameBits(s.logLikelihood, one[f].logLikelihood))
                            return "family " + std::to_string(f) + " differs";
                    return std::string();
                });
            for (const std::string& c : checks)
                QVERIFY2(c.empty(), c.c_str());
        }
    }

    void devicesPerProcess() {
        QCOMPARE(deviceForProcess("cpu", 3, 2), std::string("cpu"));
        QCOMPARE(deviceForProcess("cuda:1", 3, 2), std::string("cuda:1")); // shared as asked
        QCOMPARE(deviceForProcess("cuda", 1, 2), std::string("cuda:1"));
        QCOMPARE(deviceForProcess("auto", 0, 2), std::string("cuda:0"));
        QCOMPARE(deviceForProcess("auto", 5, 0), std::string("auto")); // no GPU: the CPU
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, deviceForProcess("cuda", 2, 2));
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, deviceForProcess("auto", 4, 4));
    }

    // A signal counts once the ranks agree on it: all of them see it at the same collective.
    void signalsCountOnceAgreed() {
        holdInterruptionsForAgreement(false);
        {
            const InterruptionHandlers handlers;
            std::raise(SIGTERM);
            QCOMPARE(receivedInterruption(), SIGTERM);
            QVERIFY(!interruptRequested()); // not agreed yet
            std::vector<int> seen(2);
            ThreadRanks(2).run([&](ProcessGroup& g) {
                g.agree();
                seen[g.rank()] = interruptSignal();
            });
            QCOMPARE(seen, (std::vector<int>{SIGTERM, SIGTERM}));
        }
        simulateInterruption(0);
    }
};

QTEST_GUILESS_MAIN(TestDistributed)
#include "test_distributed.moc"
