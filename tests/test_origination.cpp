// --origination (spec 6.1): which species node a family may start at. The checks do not reuse the
// engine's own assembly of the likelihood: the survival-weighted mixture of single-origin families
// is the uniform one, the LCA of a family covering every species is the root, and the conditioning
// term's derivative is checked by finite differences (test_gradient) and on the GPU's host emulation
// (test_gpu_solver_steps).
#include "data/origination.hpp"
#include "engine/backend.hpp"
#include "engine/species_operators.hpp"
#include "recon/sampler.hpp"
#include "simulated_data.hpp"
#include "support.hpp"

#include <QtTest>
#include <cmath>
#include <random>

using namespace gpurec;
using namespace gpurec::test;

namespace {

const char* const kSpecies = "((A,B)AB,(C,D)CD)R;";

GeneFamily familyOf(const SpeciesTree& species, const std::string& newick) {
    return makeFamily(species, "f", parseNewick(newick, "test"), GeneTreeRooting::Rooted);
}

std::shared_ptr<Dataset> withOrigination(const Dataset& data, Origination origination) {
    auto copy = std::make_shared<Dataset>(data);
    applyOrigination(*copy, origination);
    return copy;
}

RateParameters globalRates(const Dataset& data) {
    return RateParameters(RateMode::Global, data.species.size(), static_cast<int>(data.families.size()),
                          {0.2, 0.3, 0.25});
}

} // namespace

class OriginationTest : public QObject {
    Q_OBJECT

  private slots:
    void namesAreAleRaxs() {
        QVERIFY(parseOrigination("UNIFORM") == Origination::Uniform);
        QVERIFY(parseOrigination("ROOT") == Origination::Root);
        QVERIFY(parseOrigination("LCA") == Origination::Lca);
        QVERIFY(parseOrigination("OPTIMIZE") == Origination::Optimize);
        for (Origination o :
             {Origination::Uniform, Origination::Root, Origination::Lca, Origination::Optimize})
            QVERIFY(parseOrigination(toString(o)) == o);
        try {
            parseOrigination("root");
            QFAIL("a lower-case name was accepted");
        } catch (const std::invalid_argument& e) {
            QCOMPARE(std::string(e.what()),
                     std::string("unknown origination 'root' (expected UNIFORM, ROOT, LCA or OPTIMIZE)"));
        }
    }

    void lcaIsTheAncestorOfTheCoveredSpecies() {
        const SpeciesTree species = SpeciesTree::fromNewick(parseNewick(kSpecies, "test").front());
        QCOMPARE(coveredSpeciesAncestor(species, familyOf(species, "(A_1,B_1);")), species.find("AB"));
        QCOMPARE(coveredSpeciesAncestor(species, familyOf(species, "((A_1,A_2),C_1);")), species.root());
        QCOMPARE(coveredSpeciesAncestor(species, familyOf(species, "(D_1,D_2);")), species.find("D"));
        QCOMPARE(coveredSpeciesAncestor(species, familyOf(species, "((C_1,D_1),C_2);")), species.find("CD"));

        Dataset data;
        data.species = species;
        data.families = {familyOf(species, "(A_1,B_1);"), familyOf(species, "((A_1,B_1),C_1);")};
        applyOrigination(data, Origination::Lca);
        QCOMPARE(data.families[0].originSpecies, species.find("AB"));
        QCOMPARE(data.families[1].originSpecies, species.root());
        applyOrigination(data, Origination::Root);
        QCOMPARE(data.families[0].originSpecies, species.root());
        applyOrigination(data, Origination::Uniform);
        QCOMPARE(data.families[0].originSpecies, -1);
        QVERIFY(data.origination == Origination::Uniform);
    }

    // L_U = Σ_e Π_e / Σ_e (1 − E_e) = Σ_e w_e L_e with L_e = Π_e / (1 − E_e) the family started at e
    // and w_e = (1 − E_e) / Σ (1 − E): uniform origination is the survival-weighted mixture of the
    // single-node ones. E does not depend on the family, so w comes from any family's tables.
    void uniformIsTheSurvivalWeightedMixture() {
        auto data = simulatedDataset(
            simulatedSpeciesTree(7, 11), 4,
            [](int) {
                return Rates{0.2, 0.3, 0.25};
            },
            3);
        const RateParameters theta = globalRates(*data);
        const SolverOptions options;
        const Evaluation uniform = makeCpuBackend(data)->evaluate(theta, options, false);
        const FamilyTables tables = makeCpuBackend(data)->familyTables(theta, options, {0}).front();
        double survive = 0;
        for (double E : tables.E)
            survive += 1.0 - E;
        const int S = data->species.size();
        std::vector<double> mixture(data->families.size(), 0.0);
        for (int e = 0; e < S; ++e) {
            auto single = std::make_shared<Dataset>(*data);
            for (GeneFamily& f : single->families)
                f.originSpecies = e;
            const Evaluation at = makeCpuBackend(single)->evaluate(theta, options, false);
            for (std::size_t f = 0; f < mixture.size(); ++f)
                mixture[f] += (1.0 - tables.E[e]) / survive * std::exp(at.logLikelihood[f]);
        }
        for (std::size_t f = 0; f < mixture.size(); ++f)
            QVERIFY2(relativeError(std::log(mixture[f]), uniform.logLikelihood[f]) < 1e-12,
                     qPrintable(QString("family %1: mixture %2, uniform %3")
                                    .arg(f)
                                    .arg(std::log(mixture[f]), 0, 'g', 17)
                                    .arg(uniform.logLikelihood[f], 0, 'g', 17)));
    }

    // OPTIMIZE: L_O = Σ_e O_e Π_e / Σ_e O_e (1 − E_e) = Σ_e w_e L_e with w_e = O_e (1 − E_e) / Σ O (1 − E):
    // the mixture of single-node origins weighted by O and survival, whatever the weights' scale.
    void optimisedWeightsAreTheWeightedMixture() {
        auto base = simulatedDataset(
            simulatedSpeciesTree(7, 11), 4,
            [](int) {
                return Rates{0.2, 0.3, 0.25};
            },
            3);
        auto data = withOrigination(*base, Origination::Optimize);
        const int S = data->species.size();
        RateParameters theta = globalRates(*data);
        theta.addOriginationPerNode(1.0);
        std::mt19937_64 rng(9);
        std::uniform_real_distribution<double> log2Weight(-12.0, 1.0);
        for (int e = 0; e < S; ++e)
            theta.theta()[theta.originEntry(e)] = log2Weight(rng);
        const std::vector<double> o = theta.originWeights();
        const SolverOptions options;
        const Evaluation weighted = makeCpuBackend(data)->evaluate(theta, options, false);
        const FamilyTables tables = makeCpuBackend(data)->familyTables(theta, options, {0}).front();
        QCOMPARE(tables.originWeights, o);
        double survive = 0;
        for (int e = 0; e < S; ++e)
            survive += o[e] * (1.0 - tables.E[e]);
        std::vector<double> mixture(data->families.size(), 0.0);
        const RateParameters rates = globalRates(*data);
        for (int e = 0; e < S; ++e) {
            auto single = std::make_shared<Dataset>(*base);
            for (GeneFamily& f : single->families)
                f.originSpecies = e;
            const Evaluation at = makeCpuBackend(single)->evaluate(rates, options, false);
            for (std::size_t f = 0; f < mixture.size(); ++f)
                mixture[f] += o[e] * (1.0 - tables.E[e]) / survive * std::exp(at.logLikelihood[f]);
        }
        for (std::size_t f = 0; f < mixture.size(); ++f)
            QVERIFY2(relativeError(std::log(mixture[f]), weighted.logLikelihood[f]) < 1e-12,
                     qPrintable(QString("family %1: mixture %2, weighted %3")
                                    .arg(f)
                                    .arg(std::log(mixture[f]), 0, 'g', 17)
                                    .arg(weighted.logLikelihood[f], 0, 'g', 17)));
        // Equal weights, at any scale, are UNIFORM origination.
        for (double& t : theta.theta())
            t = std::log2(0.01);
        theta.setRates(0, {0.2, 0.3, 0.25});
        const Evaluation equal = makeCpuBackend(data)->evaluate(theta, options, false);
        const Evaluation uniform = makeCpuBackend(base)->evaluate(rates, options, false);
        for (std::size_t f = 0; f < mixture.size(); ++f)
            QVERIFY(relativeError(equal.logLikelihood[f], uniform.logLikelihood[f]) < 1e-14);
    }

    // The weights and the dataset's origination go together.
    void weightsNeedOptimisedOrigination() {
        auto data = simulatedDataset(
            simulatedSpeciesTree(5, 2), 2,
            [](int) {
                return Rates{0.1, 0.1, 0.1};
            },
            4);
        RateParameters theta = globalRates(*data);
        theta.addOriginationPerNode(0.5);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 makeCpuBackend(data)->evaluate(theta, SolverOptions{}, false));
        auto optimised = withOrigination(*data, Origination::Optimize);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeCpuBackend(optimised)->evaluate(
                                                            globalRates(*data), SolverOptions{}, false));
        RateParameters genewise(RateMode::Genewise, data->species.size(), 2, {0.1, 0.1, 0.1});
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, genewise.addOriginationPerNode(0.5));
    }

    // Samples start in proportion to O_e Π(root, e): with all the weight on one node, there.
    void samplesStartWhereTheWeightsAre() {
        auto base = simulatedDataset(
            simulatedSpeciesTree(9, 5), 4,
            [](int) {
                return Rates{0.1, 0.2, 0.15};
            },
            8);
        auto data = withOrigination(*base, Origination::Optimize);
        RateParameters theta = globalRates(*data);
        theta.addOriginationPerNode(std::pow(2.0, -60));
        const int chosen = data->species.left(data->species.root());
        theta.theta()[theta.originEntry(chosen)] = 0.0;
        const std::vector<FamilyTables> tables =
            makeCpuBackend(data)->familyTables(theta, SolverOptions{}, {0, 1});
        const SpeciesLayout layout(*data);
        std::mt19937_64 rng(4);
        for (int f = 0; f < 2; ++f) {
            const ReconciliationSampler sampler(layout, data->families[f], tables[f]);
            for (int k = 0; k < 20; ++k)
                QCOMPARE(sampler.draw(rng).originSpecies, chosen);
        }
    }

    // A family covering every leaf has the root as its LCA; one covering a clade does not, and
    // then starting anywhere in the tree (UNIFORM) or at the root is less likely than at its LCA
    // for rates this small.
    void lcaAndRootAgreeWhereTheFamilyCoversEverySpecies() {
        const SpeciesTree species = SpeciesTree::fromNewick(parseNewick(kSpecies, "test").front());
        Dataset data;
        data.species = species;
        data.families = {familyOf(species, "((A_1,B_1),(C_1,D_1));"), familyOf(species, "(A_1,(B_1,B_2));")};
        const RateParameters theta(RateMode::Global, species.size(), 2, {0.01, 0.02, 0.01});
        const SolverOptions options;
        const Evaluation root =
            makeCpuBackend(withOrigination(data, Origination::Root))->evaluate(theta, options, false);
        const Evaluation lca =
            makeCpuBackend(withOrigination(data, Origination::Lca))->evaluate(theta, options, false);
        const Evaluation uniform =
            makeCpuBackend(withOrigination(data, Origination::Uniform))->evaluate(theta, options, false);
        QCOMPARE(lca.logLikelihood[0], root.logLikelihood[0]);
        QVERIFY(lca.logLikelihood[1] > root.logLikelihood[1] + 1);
        QVERIFY(lca.logLikelihood[1] > uniform.logLikelihood[1]);
        QVERIFY(std::abs(lca.logLikelihood[0] - uniform.logLikelihood[0]) > 1e-3); // the option matters
    }

    // The sampler starts every reconciliation at the family's origination node.
    void samplesStartAtTheOriginationNode() {
        auto base = simulatedDataset(
            simulatedSpeciesTree(9, 5), 6,
            [](int) {
                return Rates{0.1, 0.2, 0.15};
            },
            8);
        auto data = withOrigination(*base, Origination::Lca);
        const RateParameters theta = globalRates(*data);
        auto backend = makeCpuBackend(data);
        std::vector<int> all(data->families.size());
        for (std::size_t f = 0; f < all.size(); ++f)
            all[f] = static_cast<int>(f);
        const std::vector<FamilyTables> tables = backend->familyTables(theta, SolverOptions{}, all);
        const SpeciesLayout layout(*data);
        std::mt19937_64 rng(4);
        bool belowRoot = false;
        for (std::size_t f = 0; f < all.size(); ++f) {
            const GeneFamily& family = data->families[f];
            belowRoot = belowRoot || family.originSpecies != data->species.root();
            const ReconciliationSampler sampler(layout, family, tables[f]);
            for (int k = 0; k < 20; ++k)
                QCOMPARE(sampler.draw(rng).originSpecies, family.originSpecies);
        }
        QVERIFY(belowRoot); // some family's LCA is not the root, so the test can tell LCA from ROOT
    }
};

QTEST_GUILESS_MAIN(OriginationTest)
#include "test_origination.moc"
