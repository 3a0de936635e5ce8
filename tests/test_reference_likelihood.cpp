// The CPU reference engine against ../shared/data: the tiny example's every number, and the
// AleRax datasets' log-likelihoods under both schedules.
#include "engine/backend.hpp"
#include "engine/family_solver.hpp"
#include "support.hpp"

#include <QtTest>
#include <cmath>

using namespace gpurec;
using namespace gpurec::test;

class ReferenceLikelihood : public QObject {
    Q_OBJECT

    static Evaluation evaluateAt(const LoadedInput& in, Rates r, Schedule schedule) {
        SolverOptions options;
        options.schedule = schedule;
        RateParameters theta(RateMode::Global, in.dataset->species.size(), int(in.dataset->families.size()),
                             r);
        return makeCpuBackend(in.dataset)->evaluate(theta, options, false);
    }

  private slots:
    void tinyEveryNumber_data() {
        QTest::addColumn<QString>("schedule");
        QTest::newRow("alerax") << "alerax_schedule";
        QTest::newRow("converged") << "converged";
    }
    void tinyEveryNumber() {
        QFETCH(QString, schedule);
        nlohmann::json ref = readJson(sharedData("tiny/reference.json"));
        LoadedInput in = loadShared("tiny", "species.nwk", 3);
        QCOMPARE(in.dataset->families.size(), std::size_t(1));
        const Dataset& data = *in.dataset;
        std::vector<std::string> order = ref["species_postorder"];
        for (int e = 0; e < data.species.size(); ++e)
            QCOMPARE(data.species.name(e), order[e]);
        const nlohmann::json& res = ref["results"][schedule.toStdString()];
        SolverOptions options;
        options.schedule = schedule == "converged" ? Schedule::Converged : Schedule::AleRax;
        Rates r{ref["rates"]["D"], ref["rates"]["L"], ref["rates"]["T"]};
        RateParameters theta(RateMode::Global, data.species.size(), 1, r);
        EventProbabilities p = theta.probabilities(0, PresentRates{});
        QVERIFY(relativeError(p.pS[0], res["probabilities"]["S"]) < 1e-15);
        SpeciesLayout layout(data.species, TransferConstraint::Parents);
        ExtinctionState ext = solveExtinction(layout, p, options);
        for (int e = 0; e < data.species.size(); ++e) {
            QVERIFY2(relativeError(ext.E[e], res["E"][e]) < 1e-12, qPrintable(QString("E[%1]").arg(e)));
            QVERIFY2(relativeError(ext.Ebar[e], res["Ebar"][e]) < 1e-12,
                     qPrintable(QString("Ebar[%1]").arg(e)));
        }
        const GeneFamily& fam = data.families[0];
        CladeTables tables = solveClades(layout, fam, p, ext, options);
        int checked = 0;
        for (auto& [name, values] : res["Pi"].items()) {
            // Clade names are gene labels joined by '+'.
            std::vector<std::string> genes;
            std::string rest = name;
            for (std::size_t pos; (pos = rest.find('+')) != std::string::npos; rest = rest.substr(pos + 1))
                genes.push_back(rest.substr(0, pos));
            genes.push_back(rest);
            std::vector<int> wanted;
            for (const std::string& g : genes)
                for (int i = 0; i < fam.clades.geneCount(); ++i)
                    if (fam.clades.geneNames[i] == g) wanted.push_back(i);
            std::sort(wanted.begin(), wanted.end());
            int clade = -1;
            for (int c = 0; c < fam.clades.cladeCount(); ++c)
                if (genesOf(fam.clades, c) == wanted) clade = c;
            QVERIFY2(clade >= 0, name.c_str());
            for (int e = 0; e < data.species.size(); ++e) {
                double pi = std::ldexp(tables.piRow(clade)[e], tables.scale[clade]);
                QVERIFY2(relativeError(pi, values[e]) < 1e-12,
                         qPrintable(QString("Pi[%1][%2] = %3, expected %4")
                                        .arg(name.c_str())
                                        .arg(e)
                                        .arg(pi, 0, 'g', 17)
                                        .arg(double(values[e]), 0, 'g', 17)));
            }
            ++checked;
        }
        QVERIFY(checked > 0);
        double ll = familyLogLikelihood(tables, ext, fam.originSpecies);
        QVERIFY(relativeError(-ll / std::log(2.0), res["nll_bits"]) < 1e-12);
        QVERIFY2(relativeError(ll, res["loglik_nats"]) < 1e-12,
                 qPrintable(
                     QString("LL %1 vs %2").arg(ll, 0, 'g', 17).arg(double(res["loglik_nats"]), 0, 'g', 17)));
    }

    void aleraxDatasets_data() {
        QTest::addColumn<QString>("dataset");
        for (const char* d :
             {"test_trees_1", "test_trees_2", "test_trees_3", "test_trees_200", "test_mixed_200"})
            QTest::newRow(d) << d;
    }
    void aleraxDatasets() {
        QFETCH(QString, dataset);
        std::string folder = "alerax/" + dataset.toStdString();
        nlohmann::json ref = readJson(sharedData(folder + "/reference.json"));
        LoadedInput in = loadShared(folder, "sp.nwk");
        const Dataset& data = *in.dataset;
        QCOMPARE(data.species.size(), int(ref["species_nodes"]));
        for (const auto& point : ref["points"]) {
            Rates r{point["rates"]["D"], point["rates"]["L"], point["rates"]["T"]};
            Evaluation alerax = evaluateAt(in, r, Schedule::AleRax);
            Evaluation converged = evaluateAt(in, r, Schedule::Converged);
            for (std::size_t f = 0; f < data.families.size(); ++f) {
                const std::string& name = data.families[f].name;
                double refSchedule = point["loglik_nats"]["alerax_schedule_refimpl"][name];
                double refAlerax = point["loglik_nats"]["alerax_v1.4"][name];
                double refConverged = point["loglik_nats"]["converged"][name];
                QVERIFY2(relativeError(alerax.logLikelihood[f], refSchedule) < 1e-10,
                         qPrintable(QString("%1 alerax schedule %2 vs %3")
                                        .arg(name.c_str())
                                        .arg(alerax.logLikelihood[f], 0, 'g', 17)
                                        .arg(refSchedule, 0, 'g', 17)));
                if (name == "my_family" && dataset == "test_mixed_200")
                    QVERIFY(converged.logLikelihood[f] <
                            -5000); // far below exp(-745): exact only without underflow
                if (refAlerax > -745) QVERIFY(relativeError(alerax.logLikelihood[f], refAlerax) < 1e-10);
                QVERIFY2(relativeError(converged.logLikelihood[f], refConverged) < 1e-9,
                         qPrintable(QString("%1 converged %2 vs %3")
                                        .arg(name.c_str())
                                        .arg(converged.logLikelihood[f], 0, 'g', 17)
                                        .arg(refConverged, 0, 'g', 17)));
            }
        }
    }
};

QTEST_GUILESS_MAIN(ReferenceLikelihood)
#include "test_reference_likelihood.moc"
