// Stochastic backtracking against independent computations: on the tiny example the frequency of
// every frequent reconciliation matches its exact posterior probability (a product of model
// factors over the reference E, Ē and Σ Π(root) of ../shared/data/tiny, not the sampler's
// arithmetic); on a larger family the mean event counts match expectations computed by
// propagating visit probabilities through the clade/species cells. Plus reproducibility,
// thread-count independence and a 2,000-gene family.
#include "engine/family_solver.hpp"
#include "io/number_text.hpp"
#include "recon/recon_newick.hpp"
#include "recon/sampler.hpp"
#include "recon/sampling_run.hpp"
#include "reference_model.hpp"
#include "support.hpp"
#include "test_sampling_keys.hpp"

#include <QtTest>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <mutex>
#include <set>

using namespace gpurec;
using namespace gpurec::test;

namespace {

// The model's probability of a reconciliation times Σ_e Π(root, e), written from the model's
// definition (spec 5.1 read generatively) without any Π: each event contributes its factor
// divided by 1 − 2 pD E − pT Ē (the unrecorded DL and TL-a loops). Zero for anything the model
// cannot produce.
class ScenarioWeight {
  public:
    ScenarioWeight(const SpeciesTree& s, const GeneFamily& f, const EventProbabilities& p,
                   std::vector<double> E, std::vector<double> Ebar)
        : s_(s), f_(f), p_(p), E_(std::move(E)), Ebar_(std::move(Ebar)) {
        const CladeSet& cs = f.clades;
        for (int c = 0; c < cs.cladeCount(); ++c)
            cladeOf_[genesOf(cs, c)] = c;
    }

    double operator()(const Reconciliation& r) const {
        std::vector<std::vector<int>> genes(r.nodes.size());
        collectGenes(r, r.root, genes);
        return branch(r, r.root, r.originSpecies, genes);
    }

  private:
    const SpeciesTree& s_;
    const GeneFamily& f_;
    const EventProbabilities& p_;
    std::vector<double> E_, Ebar_;
    std::map<std::vector<int>, int> cladeOf_;

    void collectGenes(const Reconciliation& r, int node, std::vector<std::vector<int>>& genes) const {
        const ReconNode& n = r.nodes[node];
        if (n.children.empty()) {
            const auto& names = f_.clades.geneNames;
            int g = int(std::find(names.begin(), names.end(), n.name) - names.begin());
            genes[node] = {g};
            return;
        }
        for (int c : n.children) {
            collectGenes(r, c, genes);
            genes[node].insert(genes[node].end(), genes[c].begin(), genes[c].end());
        }
        std::sort(genes[node].begin(), genes[node].end());
    }

    double loopFactor(int e) const { return 1.0 / (1.0 - 2 * p_.pD[e] * E_[e] - p_.pT[e] * Ebar_[e]); }
    double perRecipient(int e) const { return 1.0 / s_.recipientCount(e, TransferConstraint::Parents); }
    bool allowed(int from, int to) const { return to != from && !s_.isAncestorOrSelf(to, from); }

    double splitWeight(int parent, int a, int b) const {
        const CladeSet& cs = f_.clades;
        for (int k = cs.splitOffset[parent]; k < cs.splitOffset[parent + 1]; ++k) {
            const CladeSplit& sp = cs.splits[k];
            if ((sp.left == a && sp.right == b) || (sp.left == b && sp.right == a)) return sp.weight;
        }
        return 0.0;
    }

    double branch(const Reconciliation& r, int node, int e,
                  const std::vector<std::vector<int>>& genes) const {
        const ReconNode& n = r.nodes[node];
        double w = 1.0;
        for (std::size_t i = 0; i < n.events.size(); ++i) {
            const ReconEvent& ev = n.events[i];
            if (ev.species != e) return 0.0;
            const bool last = i + 1 == n.events.size();
            switch (ev.type) {
            case EventType::SpeciationLoss: {
                if (last || s_.isLeaf(e)) return 0.0;
                int next = n.events[i + 1].species;
                if (next != s_.left(e) && next != s_.right(e)) return 0.0;
                int lost = next == s_.left(e) ? s_.right(e) : s_.left(e);
                w *= p_.pS[e] * E_[lost] * loopFactor(e);
                e = next;
                break;
            }
            case EventType::TransferLoss:
                if (last || !allowed(e, ev.recipient)) return 0.0;
                w *= p_.pT[e] * E_[e] * perRecipient(e) * loopFactor(e);
                e = ev.recipient;
                break;
            case EventType::Leaf:
                if (!last || !n.children.empty() || f_.geneSpecies[genes[node][0]] != e) return 0.0;
                w *= p_.pS[e] * loopFactor(e);
                break;
            case EventType::Speciation:
            case EventType::Duplication:
            case EventType::Transfer: {
                if (!last || n.children.size() != 2) return 0.0;
                int a = n.children[0], b = n.children[1];
                double split =
                    splitWeight(cladeOf_.at(genes[node]), cladeOf_.at(genes[a]), cladeOf_.at(genes[b]));
                int fa = r.nodes[a].events.front().species, fb = r.nodes[b].events.front().species;
                int ea = e, eb = e;
                if (ev.type == EventType::Speciation) {
                    if (s_.isLeaf(e)) return 0.0;
                    bool straight = fa == s_.left(e) && fb == s_.right(e);
                    bool crossed = fa == s_.right(e) && fb == s_.left(e);
                    if (!straight && !crossed) return 0.0;
                    ea = fa;
                    eb = fb;
                    w *= split * p_.pS[e];
                } else if (ev.type == EventType::Duplication) {
                    w *= split * p_.pD[e];
                } else {
                    if (!allowed(e, ev.recipient)) return 0.0;
                    if (fa == ev.recipient)
                        ea = ev.recipient;
                    else
                        eb = ev.recipient;
                    w *= split * p_.pT[e] * perRecipient(e);
                }
                w *= loopFactor(e);
                return w * branch(r, a, ea, genes) * branch(r, b, eb, genes);
            }
            case EventType::Loss:
                return 0.0;
            }
        }
        return w;
    }
};

// Expected number of events of each type per sample, by pushing the probability of visiting
// each (clade, species) cell from the root down (true Π values; Π̄ recomputed from the explicit
// recipient lists R).
struct ExpectedCounts {
    double S = 0, SL = 0, D = 0, T = 0, TL = 0, Leaf = 0;
};

ExpectedCounts expectedEventCounts(const SpeciesTree& s, const GeneFamily& f, const FamilyTables& t,
                                   const std::vector<std::vector<int>>& R) {
    const CladeSet& cs = f.clades;
    const int n = s.size(), C = cs.cladeCount();
    std::vector<std::vector<double>> pi(C, std::vector<double>(n)), bar(C, std::vector<double>(n));
    for (int c = 0; c < C; ++c) {
        for (int e = 0; e < n; ++e)
            pi[c][e] = std::ldexp(t.clades.piRow(c)[e], t.clades.scale[c]);
        for (int e = 0; e < n; ++e) {
            for (int h : R[e])
                bar[c][e] += pi[c][h];
            bar[c][e] /= R[e].size();
        }
    }
    const EventProbabilities& p = t.p;
    std::vector<std::vector<double>> visits(C, std::vector<double>(n, 0.0));
    double root = 0;
    for (int e = 0; e < n; ++e)
        root += pi[C - 1][e];
    for (int e = 0; e < n; ++e)
        visits[C - 1][e] = pi[C - 1][e] / root;
    auto sendToRecipients = [&](std::vector<double>& target, int c, int e, double amount) {
        double sum = 0;
        for (int h : R[e])
            sum += pi[c][h];
        for (int h : R[e])
            target[h] += amount * pi[c][h] / sum;
    };
    ExpectedCounts out;
    for (int c = C - 1; c >= 0; --c) {
        auto total = [&](int e) {
            double v = 0;
            if (cs.cladeGene[c] >= 0 && f.geneSpecies[cs.cladeGene[c]] == e) v += p.pS[e];
            for (int k = cs.splitOffset[c]; k < cs.splitOffset[c + 1]; ++k) {
                const CladeSplit& sp = cs.splits[k];
                int a = sp.left, b = sp.right;
                if (!s.isLeaf(e))
                    v += sp.weight * p.pS[e] *
                         (pi[a][s.left(e)] * pi[b][s.right(e)] + pi[b][s.left(e)] * pi[a][s.right(e)]);
                v += sp.weight * p.pD[e] * pi[a][e] * pi[b][e];
                v += sp.weight * p.pT[e] * (pi[a][e] * bar[b][e] + pi[b][e] * bar[a][e]);
            }
            if (!s.isLeaf(e))
                v += p.pS[e] * (pi[c][s.left(e)] * t.E[s.right(e)] + pi[c][s.right(e)] * t.E[s.left(e)]);
            return v + p.pT[e] * t.E[e] * bar[c][e];
        };
        // Visits that stay in the clade (SL, TL) form a linear system; iterate to its fixed point.
        const std::vector<double> entering = visits[c];
        std::vector<double> v = entering;
        for (int it = 0; it < 1000; ++it) {
            std::vector<double> next = entering;
            for (int e = 0; e < n; ++e) {
                if (v[e] == 0) continue;
                double share = v[e] / total(e);
                if (!s.isLeaf(e)) {
                    next[s.left(e)] += share * p.pS[e] * pi[c][s.left(e)] * t.E[s.right(e)];
                    next[s.right(e)] += share * p.pS[e] * pi[c][s.right(e)] * t.E[s.left(e)];
                }
                sendToRecipients(next, c, e, share * p.pT[e] * t.E[e] * bar[c][e]);
            }
            double change = 0;
            for (int e = 0; e < n; ++e)
                change = std::max(change, std::abs(next[e] - v[e]));
            v = next;
            if (change < 1e-16) break;
        }
        for (int e = 0; e < n; ++e) {
            if (v[e] == 0) continue;
            double share = v[e] / total(e);
            if (cs.cladeGene[c] >= 0 && f.geneSpecies[cs.cladeGene[c]] == e) out.Leaf += share * p.pS[e];
            if (!s.isLeaf(e))
                out.SL += share * p.pS[e] *
                          (pi[c][s.left(e)] * t.E[s.right(e)] + pi[c][s.right(e)] * t.E[s.left(e)]);
            out.TL += share * p.pT[e] * t.E[e] * bar[c][e];
            for (int k = cs.splitOffset[c]; k < cs.splitOffset[c + 1]; ++k) {
                const CladeSplit& sp = cs.splits[k];
                int a = sp.left, b = sp.right;
                if (!s.isLeaf(e)) {
                    int fl = s.left(e), gr = s.right(e);
                    double s1 = share * sp.weight * p.pS[e] * pi[a][fl] * pi[b][gr];
                    double s2 = share * sp.weight * p.pS[e] * pi[b][fl] * pi[a][gr];
                    out.S += s1 + s2;
                    visits[a][fl] += s1;
                    visits[b][gr] += s1;
                    visits[b][fl] += s2;
                    visits[a][gr] += s2;
                }
                double d = share * sp.weight * p.pD[e] * pi[a][e] * pi[b][e];
                out.D += d;
                visits[a][e] += d;
                visits[b][e] += d;
                double t1 = share * sp.weight * p.pT[e] * pi[a][e] * bar[b][e]; // b leaves
                double t2 = share * sp.weight * p.pT[e] * pi[b][e] * bar[a][e]; // a leaves
                out.T += t1 + t2;
                visits[a][e] += t1;
                sendToRecipients(visits[b], b, e, t1);
                visits[b][e] += t2;
                sendToRecipients(visits[a], a, e, t2);
            }
        }
    }
    return out;
}

} // namespace

class Sampler : public QObject {
    Q_OBJECT

  private slots:
    void tinyFrequenciesMatchExactPosterior() {
        nlohmann::json ref = readJson(sharedData("tiny/reference.json"));
        const nlohmann::json& conv = ref["results"]["converged"];
        LoadedInput in = loadShared("tiny", "species.nwk", 3);
        const Dataset& data = *in.dataset;
        const GeneFamily& fam = data.families[0];
        Rates rates{ref["rates"]["D"], ref["rates"]["L"], ref["rates"]["T"]};
        RateParameters theta(RateMode::Global, data.species.size(), 1, rates);
        SpeciesLayout layout(data.species, TransferConstraint::Parents);
        FamilyTables tables =
            computeFamilyTables(layout, fam, theta.probabilities(0, PresentRates{}), SolverOptions{});
        ReconciliationSampler sampler(layout, fam, tables);

        const int N = 200000;
        std::mt19937_64 rng = familyGenerator(42, fam.name);
        std::map<std::string, int> counts;
        std::map<std::string, Reconciliation> examples;
        for (int i = 0; i < N; ++i) {
            Reconciliation r = sampler.draw(rng);
            std::string key = canonicalKey(r);
            if (++counts[key] == 1) examples.emplace(key, std::move(r));
        }
        // Independent of the engine: the reference file's E, Ē and Σ_e Π(root, e).
        double Z = 0;
        for (double v : conv["Pi"]["A_1+B_1+C_1"])
            Z += v;
        ScenarioWeight weight(data.species, fam, tables.p, conv["E"].get<std::vector<double>>(),
                              conv["Ebar"].get<std::vector<double>>());
        double sampledMass = 0;
        int tested = 0;
        double worst = 0;
        for (const auto& [key, count] : counts) {
            double prob = weight(examples.at(key)) / Z;
            QVERIFY2(prob > 0,
                     qPrintable(QString::fromStdString("impossible reconciliation sampled: " + key)));
            sampledMass += prob;
            if (prob < 1e-3) continue;
            double se = std::sqrt(N * prob * (1 - prob));
            double z = (count - N * prob) / se;
            worst = std::max(worst, std::abs(z));
            QVERIFY2(std::abs(z) <= 3, qPrintable(QString("%1: %2 draws, expected %3 (z = %4)")
                                                      .arg(QString::fromStdString(key))
                                                      .arg(count)
                                                      .arg(N * prob)
                                                      .arg(z)));
            ++tested;
        }
        qInfo(
            "%zu distinct reconciliations, %d with probability >= 1e-3 (largest |z| %.2f), sampled mass %.6f",
            counts.size(), tested, worst, sampledMass);
        QVERIFY(tested >= 20);
        // Distinct keys are distinct scenarios: their probabilities cannot add up to more than 1.
        QVERIFY(sampledMass <= 1 + 1e-9);
        QVERIFY(sampledMass > 0.99);
    }

    // Under each constraint, with the recipient sets by brute force (reference_model.hpp): RELDATED
    // on the tree's dating. Every transfer goes to an allowed recipient.
    void eventTypeFrequenciesOnLargerFamily_data() {
        QTest::addColumn<int>("constraint");
        QTest::newRow("PARENTS") << int(TransferConstraint::Parents);
        QTest::newRow("RELDATED") << int(TransferConstraint::RelDated);
    }
    void eventTypeFrequenciesOnLargerFamily() {
        QFETCH(int, constraint);
        const auto recipients = static_cast<TransferConstraint>(constraint);
        LoadedInput in = loadShared("alerax/test_trees_2", "sp.nwk");
        const Dataset& data = *in.dataset;
        const GeneFamily& fam = data.families[0];
        RateParameters theta(RateMode::Global, data.species.size(), 1, {0.1, 0.2, 0.15});
        SpeciesLayout layout(data.species, recipients);
        FamilyTables tables =
            computeFamilyTables(layout, fam, theta.probabilities(0, PresentRates{}), SolverOptions{});
        ReconciliationSampler sampler(layout, fam, tables);
        const std::vector<std::vector<int>> R = referenceRecipients(data.species, recipients);
        ExpectedCounts expected = expectedEventCounts(data.species, fam, tables, R);
        QVERIFY(std::abs(expected.Leaf - fam.clades.geneCount()) < 1e-9);

        const int N = 40000;
        std::mt19937_64 rng = familyGenerator(7, fam.name);
        std::array<double, 5> sum{}, sumSq{};
        long transfers = 0;
        for (int i = 0; i < N; ++i) {
            Reconciliation r = sampler.draw(rng);
            for (const ReconNode& node : r.nodes)
                for (const ReconEvent& ev : node.events)
                    if (ev.type == EventType::Transfer || ev.type == EventType::TransferLoss) {
                        const std::vector<int>& allowed = R[ev.species];
                        QVERIFY2(std::find(allowed.begin(), allowed.end(), ev.recipient) != allowed.end(),
                                 qPrintable(QString::fromStdString("transfer from " +
                                                                   data.species.name(ev.species) + " to " +
                                                                   data.species.name(ev.recipient))));
                        ++transfers;
                    }
            EventCounts c = countEvents(r);
            QCOMPARE(c.Leaf, long(fam.clades.geneCount()));
            QCOMPARE(c.S + c.D + c.T, long(fam.clades.geneCount() - 1));
            std::array<double, 5> v = {double(c.S), double(c.SL), double(c.D), double(c.T), double(c.TL)};
            for (int k = 0; k < 5; ++k) {
                sum[k] += v[k];
                sumSq[k] += v[k] * v[k];
            }
        }
        const std::array<double, 5> want = {expected.S, expected.SL, expected.D, expected.T, expected.TL};
        const char* names[] = {"S", "SL", "D", "T", "TL"};
        for (int k = 0; k < 5; ++k) {
            double mean = sum[k] / N;
            double se = std::sqrt((sumSq[k] / N - mean * mean) / N);
            qInfo("%s: sampled mean %.4f, expected %.4f, se %.4f", names[k], mean, want[k], se);
            QVERIFY(want[k] > 0.01); // every event type is exercised
            QVERIFY2(
                std::abs(mean - want[k]) <= 3 * se,
                qPrintable(
                    QString("%1: mean %2, expected %3, se %4").arg(names[k]).arg(mean).arg(want[k]).arg(se)));
        }
        QVERIFY(transfers > 0);
    }

    void reproducibleAndIndependentOfThreads() {
        LoadedInput in = loadShared("simulated_2", "species.nwk");
        const Dataset& data = *in.dataset;
        QCOMPARE(data.families.size(), std::size_t(3));
        RateParameters theta(RateMode::Global, data.species.size(), 3, {0.05, 0.1, 0.05});
        auto run = [&](int threads, std::uint64_t seed, std::vector<int> families) {
            SamplingSettings settings;
            settings.samples = 4;
            settings.seed = seed;
            settings.solver.threads = threads;
            std::map<std::string, std::vector<std::string>> out;
            std::mutex m;
            sampleFamilies(
                data, theta, families, settings,
                [&](FamilySamples&& fs) {
                    std::vector<std::string> lines;
                    for (const Reconciliation& r : fs.reconciliations)
                        lines.push_back(toAleNewick(r, data.species));
                    std::lock_guard lock(m);
                    out[data.families[fs.family].name] = lines;
                },
                cpuTables(in.dataset, theta, settings));
            return out;
        };
        auto one = run(1, 5, {0, 1, 2});
        auto two = run(2, 5, {2, 0, 1});
        QCOMPARE(one.size(), std::size_t(3));
        QVERIFY(one == two);
        auto alone = run(2, 5, {1});
        QVERIFY(alone.at("fam1") == one.at("fam1"));
        auto other = run(2, 6, {0, 1, 2});
        QVERIFY(other.at("fam0") != one.at("fam0"));

        // Tables from elsewhere (another backend) are used as given.
        SpeciesLayout layout(data);
        std::atomic<int> calls{0};
        SamplingSettings settings;
        settings.samples = 4;
        settings.seed = 5;
        std::map<std::string, std::vector<std::string>> external;
        std::mutex m;
        sampleFamilies(
            data, theta, {0, 1, 2}, settings,
            [&](FamilySamples&& fs) {
                std::vector<std::string> lines;
                for (const Reconciliation& r : fs.reconciliations)
                    lines.push_back(toAleNewick(r, data.species));
                std::lock_guard lock(m);
                external[data.families[fs.family].name] = lines;
            },
            [&](const std::vector<int>& group) {
                std::vector<FamilyTables> tables;
                for (int f : group) {
                    ++calls;
                    tables.push_back(computeFamilyTables(
                        layout, data.families[f], theta.probabilities(f, PresentRates{}), SolverOptions{}));
                }
                return tables;
            });
        QCOMPARE(calls.load(), 3);
        QVERIFY(external == one);
    }

    void badSettingsAreRejected() {
        LoadedInput in = loadShared("alerax/test_trees_2", "sp.nwk");
        const Dataset& data = *in.dataset;
        SamplingSettings settings;
        settings.samples = 0;
        RateParameters theta(RateMode::Global, data.species.size(), 1, {0.1, 0.1, 0.1});
        auto message = [&](const RateParameters& t, const SamplingSettings& s) {
            try {
                sampleFamilies(
                    data, t, {0}, s, [](FamilySamples&&) {}, cpuTables(in.dataset, t, s));
            } catch (const std::invalid_argument& e) {
                return std::string(e.what());
            }
            return std::string("no error");
        };
        QCOMPARE(message(theta, settings), std::string("the number of samples must be at least 1 (got 0)"));
        settings.samples = 1;
        RateParameters high(RateMode::Specieswise, data.species.size(), 1, {0.1, 0.1, 0.1});
        high.setRates(3, {0.1, 2.5, 0.1});
        QCOMPARE(message(high, settings),
                 "loss rate 2.5 of species node " + data.species.name(3) + " is out of bounds [1e-10, 2]");
        RateParameters low(RateMode::Global, data.species.size(), 1, {1e-12, 0.1, 0.1});
        // The rate the engine holds (2^log2(1e-12), a rounding step from 1e-12), exactly.
        QCOMPARE(QString::fromStdString(message(low, settings)),
                 QString("duplication rate %1 of the global rates is out of bounds [1e-10, 2]")
                     .arg(QString::fromStdString(shortestNumberText(low.rates(0).d))));
        QVERIFY(low.rates(0).d != 1e-12 && std::abs(low.rates(0).d - 1e-12) < 1e-26);
    }

    void twoThousandGeneFamily() {
        std::string dir = temporaryFolder("sampler_large");
        const int genes = 2000;
        // A caterpillar: the deepest gene tree there is.
        std::string tree = "A_0";
        const char* species[] = {"A", "B", "C", "D"};
        for (int i = 1; i < genes; ++i)
            tree = "(" + tree + "," + species[i % 4] + "_" + std::to_string(i) + ")";
        writeFile(dir + "/g.nwk", tree + ";");
        SpeciesTree sp = SpeciesTree::fromNewick(parseNewick("((A,B),(C,D));", "species").front());
        FamilyInput input;
        input.name = "g";
        input.geneTreePath = dir + "/g.nwk";
        GeneFamily fam = prepareFamily(sp, input, GeneTreeRooting::Rooted);
        RateParameters theta(RateMode::Global, sp.size(), 1, {0.2, 0.1, 0.1});
        SpeciesLayout layout(sp, TransferConstraint::Parents);
        FamilyTables tables =
            computeFamilyTables(layout, fam, theta.probabilities(0, PresentRates{}), SolverOptions{});
        ReconciliationSampler sampler(layout, fam, tables, false);
        std::mt19937_64 rng = familyGenerator(1, "g");
        for (int k = 0; k < 3; ++k) {
            Reconciliation r = sampler.draw(rng);
            std::set<std::string> leaves;
            int internal = 0;
            for (const ReconNode& n : r.nodes) {
                if (n.children.empty())
                    QVERIFY(leaves.insert(n.name).second);
                else
                    ++internal;
            }
            QCOMPARE(int(leaves.size()), genes);
            QCOMPARE(internal, genes - 1);
            std::string newick = toNewickEvents(r);
            QCOMPARE(parseNewick(newick, "sample").front().leaves().size(), std::size_t(genes));
        }
    }
};

QTEST_GUILESS_MAIN(Sampler)
#include "test_sampler.moc"
