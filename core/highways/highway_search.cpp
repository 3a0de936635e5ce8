#include "highways/highway_search.hpp"

#include "io/number_text.hpp"
#include "io/output_file.hpp"
#include "io/result_writer.hpp"
#include "optim/recon_model.hpp"
#include "recon/sampling_run.hpp"
#include "recon/transfer_tally.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <stdexcept>

namespace gpurec {

int pathLength(const SpeciesTree& tree, int a, int b) {
    int lca = a;
    while (!tree.isAncestorOrSelf(lca, b))
        lca = tree.parent(lca);
    return tree.depth(a) + tree.depth(b) - 2 * tree.depth(lca);
}

namespace {

// AleRax's rules (alerax-files.md §2.2, §2.4).
constexpr int kMinAutomaticTransfers = 2;
constexpr int kMinAutomaticPath = 5;
constexpr double kFirstRate = 0.01, kSecondRate = 0.1;
constexpr double kMinGain = 0.01;  // nats, for a first probe to count
constexpr double kKeptRate = 1e-6; // the joint fit's survivors
constexpr double kRateBounds[2] = {1e-10, 2.0};

// One backend moved from one set of highways to the next (LikelihoodBackend::setSpeciesTree), and
// θ with those highways' rates.
class HighwayModel {
  public:
    HighwayModel(const std::shared_ptr<const Dataset>& data, const RateParameters& theta,
                 const BackendFactory& factory, SolverOptions options)
        : work_(std::make_shared<Dataset>(*data)), base_(theta.category(0.0)),
          shape_(theta.shapeEntry() >= 0), alpha_(theta.speciationShape()), options_(options) {
        backend_ = factory(work_);
    }

    RateParameters parameters(const std::vector<HighwayRecord>& highways) const {
        RateParameters theta = base_;
        if (!highways.empty()) theta.addHighways(static_cast<int>(highways.size()), kSecondRate);
        for (std::size_t h = 0; h < highways.size(); ++h)
            theta.theta()[theta.highwayEntry(static_cast<int>(h))] = std::log2(highways[h].rate);
        if (shape_) theta.addSpeciationShape(alpha_);
        return theta;
    }

    // The dataset and backend now carry these highways.
    void place(const std::vector<HighwayRecord>& highways) {
        work_->highways.clear();
        work_->highwayRates.clear();
        for (const HighwayRecord& r : highways) {
            work_->highways.push_back(r.highway);
            work_->highwayRates.push_back(r.rate);
        }
        backend_->setSpeciesTree(work_);
    }

    Evaluation evaluate(const std::vector<HighwayRecord>& highways) {
        place(highways);
        ++evaluations_;
        return backend_->evaluate(parameters(highways), options_, false);
    }

    const std::shared_ptr<Dataset>& dataset() const { return work_; }
    const std::shared_ptr<LikelihoodBackend>& backend() const { return backend_; }
    const SolverOptions& options() const { return options_; }
    int evaluations() const { return evaluations_; }

  private:
    std::shared_ptr<Dataset> work_;
    std::shared_ptr<LikelihoodBackend> backend_;
    RateParameters base_; // θ without highways or shape
    bool shape_;
    double alpha_;
    SolverOptions options_;
    int evaluations_ = 0;
};

// Brent's minimisation of f on [a, b] (golden sections and parabolic steps), to `tolerance` in x;
// `x` starts at the best point known.
template <class F> double brentMinimum(F&& f, double a, double b, double x, double fx, double tolerance) {
    constexpr double golden = 0.3819660112501051;
    double w = x, v = x, fw = fx, fv = fx, d = 0.0, e = 0.0;
    for (int it = 0; it < 60; ++it) {
        const double m = 0.5 * (a + b), tol = tolerance * std::abs(x) + 1e-10, tol2 = 2 * tol;
        if (std::abs(x - m) <= tol2 - 0.5 * (b - a)) break;
        double step = 0.0;
        bool parabolic = false;
        if (std::abs(e) > tol) {
            const double r = (x - w) * (fx - fv), q0 = (x - v) * (fx - fw);
            double p = (x - v) * q0 - (x - w) * r, q = 2 * (q0 - r);
            if (q > 0) p = -p;
            q = std::abs(q);
            if (std::abs(p) < std::abs(0.5 * q * e) && p > q * (a - x) && p < q * (b - x)) {
                e = d;
                step = p / q;
                parabolic = true;
                if ((x + step) - a < tol2 || b - (x + step) < tol2) step = x < m ? tol : -tol;
            }
        }
        if (!parabolic) {
            e = x < m ? b - x : a - x;
            step = golden * e;
        }
        d = step;
        const double u = std::abs(step) >= tol ? x + step : x + (step > 0 ? tol : -tol);
        const double fu = f(u);
        if (fu <= fx) {
            (u < x ? b : a) = x;
            v = w, fv = fw, w = x, fw = fx, x = u, fx = fu;
        } else {
            (u < x ? a : b) = u;
            if (fu <= fw || w == x) {
                v = w, fv = fw, w = u, fw = fu;
            } else if (fu <= fv || v == x || v == w) {
                v = u, fv = fu;
            }
        }
    }
    return x;
}

// candidate_tests/transferll_<src>_to_<dest>.txt: each family's gain, ascending, ties by name.
void writeGains(const std::string& path, const Dataset& data, const std::vector<double>& gains) {
    std::vector<std::size_t> order(gains.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return gains[a] != gains[b] ? gains[a] < gains[b] : data.families[a].name < data.families[b].name;
    });
    std::string text = "fam, llDiff\n";
    for (std::size_t f : order)
        text += data.families[f].name + ", " + exactNumberText(gains[f]) + "\n";
    writeFileAtomically(path, text);
}

} // namespace

HighwaySearchResult searchHighways(const std::shared_ptr<const Dataset>& data, const RateParameters& theta,
                                   const BackendFactory& factory, const HighwaySearchSettings& settings,
                                   const std::string& folder,
                                   const std::function<void(const std::string&)>& log) {
    if (!data->highways.empty() || theta.highwayCount() > 0)
        throw std::invalid_argument("the highway search starts from a model without highways");
    if (theta.mode() == RateMode::Genewise)
        throw std::invalid_argument(
            "the highway search needs rates shared by the families, not per-family rates");
    const SpeciesTree& tree = data->species;
    auto say = [&](const std::string& line) {
        if (log) log(line);
    };
    HighwaySearchResult result;
    HighwayModel model(data, theta, factory, settings.solver);

    // Transfers of one reconciliation per family, at the rates given.
    TransferTally tally(static_cast<int>(data->families.size()), tree.size());
    {
        SamplingSettings sampling;
        sampling.samples = 1;
        sampling.seed = settings.seed;
        sampling.solver = settings.solver;
        std::vector<int> all(data->families.size());
        std::iota(all.begin(), all.end(), 0);
        std::vector<int> identity(tree.size());
        std::iota(identity.begin(), identity.end(), 0);
        model.place({});
        sampleFamilies(
            *model.dataset(), theta, all, sampling,
            [&](FamilySamples&& s) { tally.add(s.family, s.reconciliations, identity); },
            backendTables(*model.backend(), theta, sampling));
    }
    if (settings.candidatesFile.empty()) {
        for (const TransferTally::Pair& p : tally.sorted(kMinAutomaticTransfers)) {
            if (static_cast<int>(result.candidates.size()) >= settings.candidatesStep1) break;
            if (pathLength(tree, p.donor, p.recipient) >= kMinAutomaticPath)
                result.candidates.push_back({p.donor, p.recipient});
        }
    } else {
        // The file's pairs the sampled transfers rank first, in that order, then the others in file order.
        const std::vector<Highway> listed =
            readHighwayCandidates(settings.candidatesFile, tree, data->transferConstraint);
        for (const TransferTally::Pair& p : tally.sorted(1)) {
            const Highway h{p.donor, p.recipient};
            if (std::find(listed.begin(), listed.end(), h) != listed.end()) result.candidates.push_back(h);
        }
        for (const Highway& h : listed)
            if (std::find(result.candidates.begin(), result.candidates.end(), h) == result.candidates.end())
                result.candidates.push_back(h);
    }
    ensureDirectory(folder);
    std::vector<HighwayRecord> candidates;
    for (const Highway& h : result.candidates)
        candidates.push_back({h, kSecondRate, 0.0});
    writeHighways(folder + "/candidate_highways.txt", tree, candidates);
    say(std::to_string(candidates.size()) + " candidate highways");

    // Each candidate in turn, on top of those accepted so far, at the accepted ones' rates.
    int trees = 0;
    for (const GeneFamily& f : data->families)
        trees += f.clades.treeCount;
    result.bicThreshold = std::log(std::max(trees, 1)) / 2;
    std::vector<HighwayRecord> accepted;
    Evaluation current = model.evaluate(accepted);
    result.startLogLikelihood = current.totalLogLikelihood;
    ensureDirectory(folder + "/candidate_tests");
    for (const Highway& h : result.candidates) {
        HighwayTest test;
        test.record = {h, kFirstRate, 0.0};
        const std::string name = tree.name(h.source) + "_to_" + tree.name(h.destination);
        if (!highwayAllowed(tree, data->transferConstraint, h)) {
            test.outcome = "not allowed";
            result.tests.push_back(test);
            continue;
        }
        auto gainAt = [&](double rate) {
            std::vector<HighwayRecord> with = accepted;
            with.push_back({h, rate, 0.0});
            return model.evaluate(with);
        };
        Evaluation probe = gainAt(kFirstRate);
        double rate = kFirstRate;
        if (probe.totalLogLikelihood - current.totalLogLikelihood < kMinGain) {
            probe = gainAt(kSecondRate);
            rate = kSecondRate;
        }
        std::vector<double> gains(data->families.size());
        for (std::size_t f = 0; f < gains.size(); ++f)
            gains[f] = probe.logLikelihood[f] - current.logLikelihood[f];
        writeGains(folder + "/candidate_tests/transferll_" + name + ".txt", *data, gains);
        test.gain = probe.totalLogLikelihood - current.totalLogLikelihood;
        if (test.gain < kMinGain) {
            test.outcome = "no improvement";
            result.tests.push_back(test);
            continue;
        }
        // Its rate alone, from the probe that gained (the others held).
        const double lo = std::log2(kRateBounds[0]), hi = std::log2(kRateBounds[1]);
        auto nll = [&](double log2Rate) { return -gainAt(std::exp2(log2Rate)).totalLogLikelihood; };
        const double best = brentMinimum(nll, lo, hi, std::log2(rate), -probe.totalLogLikelihood, 1e-3);
        const Evaluation fitted = gainAt(std::exp2(best));
        test.gain = fitted.totalLogLikelihood - current.totalLogLikelihood;
        test.record.rate = std::exp2(best);
        test.record.llDiff = test.gain;
        if (!(test.gain > result.bicThreshold)) { // 2 ΔLL > ln(n)
            test.outcome = "BIC";
            result.tests.push_back(test);
            continue;
        }
        test.outcome = "accepted";
        accepted.push_back(test.record);
        current = fitted;
        result.tests.push_back(test);
        say("highway " + tree.name(h.source) + " -> " + tree.name(h.destination) + " accepted: +" +
            shortestNumberText(test.gain) + " nats at rate " + shortestNumberText(test.record.rate));
    }

    // The best step2 of them, their rates fitted together with the rates held.
    std::stable_sort(accepted.begin(), accepted.end(),
                     [](const HighwayRecord& a, const HighwayRecord& b) { return a.llDiff > b.llDiff; });
    if (static_cast<int>(accepted.size()) > settings.candidatesStep2)
        accepted.resize(settings.candidatesStep2);
    if (!accepted.empty()) {
        model.place(accepted);
        ReconModel joint(model.dataset(), model.backend(), model.parameters(accepted), model.options());
        OptimizerSettings fit = settings.jointFit;
        fit.fix_rates = true;
        const OptimizationResult r = optimizeRates(joint, fit);
        result.evaluations += r.evaluations;
        for (std::size_t h = 0; h < accepted.size(); ++h)
            accepted[h].rate = std::exp2(r.best.theta()[r.best.highwayEntry(static_cast<int>(h))]);
        std::erase_if(accepted, [](const HighwayRecord& a) { return a.rate < kKeptRate; });
        std::stable_sort(accepted.begin(), accepted.end(),
                         [](const HighwayRecord& a, const HighwayRecord& b) { return a.rate > b.rate; });
        current = model.evaluate(accepted);
    }
    result.accepted = accepted;
    result.logLikelihood = current.totalLogLikelihood;
    result.evaluations += model.evaluations();
    writeHighways(folder + "/accepted_highways.txt", tree, accepted);
    say(std::to_string(accepted.size()) + " highways accepted");
    return result;
}

} // namespace gpurec
