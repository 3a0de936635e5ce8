// Speciation rate categories (spec 3.1): the mean rates of k equal-probability bins of Gamma(α, α),
// against closed forms (α = 1: the exponential distribution, whose bin means are elementary) and
// against the published values AleRax's routine gives, and the classic approximations it is built
// from against the standard library and known quantiles.
#include "engine/backend_factory.hpp"
#include "model/gamma_categories.hpp"
#include "recon/sampling_run.hpp"
#include "simulated_data.hpp"
#include "support.hpp"

#include <QtTest>
#include <cmath>
#include <mutex>
#include <numeric>

using namespace gpurec;
using namespace gpurec::test;

namespace {

std::shared_ptr<Dataset> simulated(int categories) {
    auto data = simulatedDataset(
        simulatedSpeciesTree(7, 4), 5,
        [](int) {
            return Rates{0.2, 0.25, 0.15};
        },
        6);
    data->speciationCategories = categories;
    return data;
}

// Mean rates of Exp(1)'s k equal-probability bins: k ∫ x e^−x dx over [a, b], a and b the bin's
// quantiles −ln(1 − i/k), is k ((a + 1) e^−a − (b + 1) e^−b).
std::vector<double> exponentialBinMeans(int k) {
    std::vector<double> out(k);
    auto tail = [](double q) { return std::isinf(q) ? 0.0 : (q + 1.0) * std::exp(-q); };
    for (int i = 0; i < k; ++i) {
        const double a = -std::log(1.0 - static_cast<double>(i) / k);
        const double b = i + 1 == k ? INFINITY : -std::log(1.0 - (i + 1.0) / k);
        out[i] = k * (tail(a) - tail(b));
    }
    return out;
}

} // namespace

class GammaCategories : public QObject {
    Q_OBJECT
  private slots:
    void exponentialBinsInClosedForm() {
        for (int k : {2, 3, 4, 8, 16}) {
            const std::vector<double> got = gammaCategoryRates(1.0, k), want = exponentialBinMeans(k);
            for (int c = 0; c < k; ++c)
                QVERIFY2(std::abs(got[c] - want[c]) < 2e-7 * want[c],
                         qPrintable(QString("k=%1 c=%2: %3 vs %4")
                                        .arg(k)
                                        .arg(c)
                                        .arg(got[c], 0, 'g', 17)
                                        .arg(want[c], 0, 'g', 17)));
        }
    }

    // The values AleRax's routine (corax's mean-rate discrete gamma) gives, to its printed digits.
    void aleraxValues() {
        const struct {
            double alpha;
            std::vector<double> rates;
        } cases[] = {{1.0, {0.3068528194, 1.693147181}},
                     {1.0, {0.1369537827, 0.4767518562, 1.0, 2.386294361}},
                     {0.5, {0.03338775338, 0.2519159176, 0.820268482, 2.894427847}},
                     {2.0, {0.293274716, 0.6550136762, 1.069989662, 1.981721946}},
                     {100.0, {0.8759057389, 0.9647389208, 1.02954912, 1.12980622}}};
        for (const auto& c : cases) {
            const std::vector<double> got = gammaCategoryRates(c.alpha, static_cast<int>(c.rates.size()));
            for (std::size_t i = 0; i < got.size(); ++i)
                QVERIFY2(
                    std::abs(got[i] - c.rates[i]) < 1e-9 * c.rates[i] + 1e-9,
                    qPrintable(
                        QString("alpha %1, category %2: %3").arg(c.alpha).arg(i).arg(got[i], 0, 'g', 12)));
        }
    }

    void ratesAverageOneAndIncrease() {
        for (double alpha : {0.0201, 0.3, 1.7, 12.0, 100.0})
            for (int k : {1, 2, 5, 9}) {
                const std::vector<double> r = gammaCategoryRates(alpha, k);
                QVERIFY(std::abs(std::accumulate(r.begin(), r.end(), 0.0) / k - 1.0) < 1e-12);
                for (int c = 1; c < k; ++c)
                    QVERIFY(r[c] > r[c - 1]);
            }
        QCOMPARE(gammaCategoryRates(3.0, 1), std::vector<double>{1.0});
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, gammaCategoryRates(0.01, 4));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, gammaCategoryRates(101.0, 4));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, gammaCategoryRates(1.0, 0));
    }

    // The slopes against a wide central difference of the rates themselves.
    void slopes() {
        for (double alpha : {0.1, 1.0, 7.0}) {
            const std::vector<double> slope = gammaCategoryRateSlopes(alpha, 4);
            const double h = 0.05;
            const std::vector<double> up = gammaCategoryRates(alpha * std::exp2(h), 4),
                                      down = gammaCategoryRates(alpha * std::exp2(-h), 4);
            for (int c = 0; c < 4; ++c) {
                const double wide = (std::log2(up[c]) - std::log2(down[c])) / (2 * h);
                QVERIFY2(
                    std::abs(slope[c] - wide) < 1e-2 * std::abs(wide) + 1e-6,
                    qPrintable(QString("alpha %1 c %2: %3 vs %4").arg(alpha).arg(c).arg(slope[c]).arg(wide)));
            }
        }
    }

    // The mixture: category c is the model with speciation weight s_c, p^S = s_c / (s_c + δ + λ + τ),
    // i.e. the plain model at the rates divided by s_c; a family's likelihood is the mean of its
    // categories' (each conditioned on survival on its own).
    void mixtureIsTheMeanOfTheCategories() {
        const int k = 4;
        auto data = simulated(k);
        const double alpha = 0.6;
        const Rates rates{0.2, 0.25, 0.15};
        RateParameters theta(RateMode::Global, data->species.size(), 0, rates);
        theta.addSpeciationShape(alpha);
        const Evaluation mixture =
            selectBackend("cpu", data, {}).backend->evaluate(theta, SolverOptions{}, false);
        auto plain = simulated(1);
        const std::vector<double> s = gammaCategoryRates(alpha, k);
        std::vector<std::vector<double>> perCategory;
        for (double scaler : s) {
            const RateParameters scaled(RateMode::Global, plain->species.size(), 0,
                                        {rates.d / scaler, rates.l / scaler, rates.t / scaler});
            perCategory.push_back(
                makeCpuBackend(plain)->evaluate(scaled, SolverOptions{}, false).logLikelihood);
        }
        for (std::size_t f = 0; f < data->families.size(); ++f) {
            double mean = 0;
            for (int c = 0; c < k; ++c)
                mean += std::exp(perCategory[c][f]) / k;
            QVERIFY2(relativeError(mixture.logLikelihood[f], std::log(mean)) < 1e-12,
                     qPrintable(QString("family %1: %2 vs %3")
                                    .arg(f)
                                    .arg(mixture.logLikelihood[f], 0, 'g', 17)
                                    .arg(std::log(mean), 0, 'g', 17)));
        }
        // A wide Gamma (α = 100) puts every weight near 1: close to the plain model, not equal.
        theta.theta().back() = std::log2(100.0);
        const Evaluation narrow =
            selectBackend("cpu", data, {}).backend->evaluate(theta, SolverOptions{}, false);
        const Evaluation single = makeCpuBackend(plain)->evaluate(
            RateParameters(RateMode::Global, plain->species.size(), 0, rates), SolverOptions{}, false);
        QVERIFY(std::abs(narrow.totalLogLikelihood - single.totalLogLikelihood) <
                0.05 * std::abs(single.totalLogLikelihood));
        QVERIFY(narrow.totalLogLikelihood != single.totalLogLikelihood);
        // Without the shape the mixture refuses θ; a one-category backend refuses the shape.
        QVERIFY_THROWS_EXCEPTION(
            std::invalid_argument,
            selectBackend("cpu", data, {})
                .backend->evaluate(RateParameters(RateMode::Global, data->species.size(), 0, rates),
                                   SolverOptions{}, false));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 makeCpuBackend(plain)->evaluate(theta, SolverOptions{}, false));
    }

    // Sampling reads every category's tables: the family's likelihood is the mixture's, and the
    // draws are the same for the same seed.
    void samplingDrawsCategories() {
        auto data = simulated(3);
        RateParameters theta(RateMode::Global, data->species.size(), 0, {0.2, 0.25, 0.15});
        theta.addSpeciationShape(0.5);
        auto backend = selectBackend("cpu", data, {}).backend;
        const Evaluation ev = backend->evaluate(theta, SolverOptions{}, false);
        SamplingSettings settings;
        settings.samples = 20;
        std::vector<FamilySamples> got;
        std::mutex guard; // consume runs on the worker threads
        sampleFamilies(
            *data, theta, {0, 1}, settings,
            [&](FamilySamples&& s) {
                const std::lock_guard lock(guard);
                got.push_back(std::move(s));
            },
            backendTables(*backend, theta, settings));
        QCOMPARE(got.size(), std::size_t(2));
        for (const FamilySamples& s : got) {
            QVERIFY(relativeError(s.logLikelihood, ev.logLikelihood[s.family]) < 1e-12);
            QCOMPARE(s.reconciliations.size(), std::size_t(20));
        }
        const std::vector<FamilyTables> tables = backend->familyTables(theta, SolverOptions{}, {0});
        QCOMPARE(tables.front().categories.size(), std::size_t(3));
        QVERIFY(tables.front().E.empty());
    }

    void approximations() {
        for (double x : {0.05, 0.5, 1.0, 2.5, 6.9, 7.0, 30.0})
            QVERIFY(std::abs(logGamma(x) - std::lgamma(x)) <
                    1e-9 * std::max(1.0, std::abs(std::lgamma(x)))); // Stirling to 1e-9
        for (double x : {0.01, 0.7, 1.0, 3.0, 40.0}) // P(1, x) = 1 − e^−x; P(3, x) by its series
            QVERIFY(std::abs(incompleteGammaRatio(x, 1.0, 0.0) - (1.0 - std::exp(-x))) < 1e-8);
        QCOMPARE(incompleteGammaRatio(0.0, 2.0, 0.0), 0.0);
        QCOMPARE(incompleteGammaRatio(-1.0, 2.0, 0.0), -1.0);
        QVERIFY(std::abs(approximateNormalQuantile(0.975) - 1.959963985) < 5e-4);
        QVERIFY(std::abs(approximateNormalQuantile(0.5)) < 1e-4); // AS 70 is accurate to about 1.5e-8 in p
        for (double p : {0.1, 0.5, 0.9, 0.99}) // χ² with 2 degrees of freedom: −2 ln(1 − p)
            QVERIFY(std::abs(chiSquareQuantile(p, 2.0) + 2.0 * std::log(1.0 - p)) < 1e-6);
        QCOMPARE(chiSquareQuantile(1e-7, 2.0), -1.0);
    }
};

QTEST_GUILESS_MAIN(GammaCategories)
#include "test_gamma_categories.moc"
