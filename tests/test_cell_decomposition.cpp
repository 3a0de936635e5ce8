// Π(γ, e), E(e) and Ē(e) taken apart into the terms of their equations (the teaching view's
// numbers): on the tiny example the terms of every cell add up to the independent reference
// implementation's Π, E and Ē; on simulated families they add up to the engine's own cells at
// any depth (scaled rows); a single gene's observation term is pS exactly.
#include "engine/cell_decomposition.hpp"
#include "reference_model.hpp"
#include "simulated_data.hpp"
#include "support.hpp"

#include <QtTest>
#include <cmath>

using namespace gpurec;
using namespace gpurec::test;

class CellDecomposition : public QObject {
    Q_OBJECT

  private slots:
    void tinyCellsAddUpToTheReference() {
        const nlohmann::json ref = readJson(sharedData("tiny/reference.json"));
        const nlohmann::json& res = ref["results"]["converged"];
        LoadedInput in = loadShared("tiny", "species.nwk", 3);
        const Dataset& data = *in.dataset;
        const RateParameters theta(RateMode::Global, data.species.size(), 1,
                                   {ref["rates"]["D"], ref["rates"]["L"], ref["rates"]["T"]});
        const FamilyTables tables =
            makeCpuBackend(in.dataset)->familyTables(theta, SolverOptions{}, {0}).front();
        const SpeciesLayout layout(data);
        const GeneFamily& family = data.families[0];
        int cells = 0;
        for (int c = 0; c < family.clades.cladeCount(); ++c) {
            const nlohmann::json& expected = res["Pi"][referenceCladeName(family.clades, c)];
            QVERIFY2(expected.is_array(), referenceCladeName(family.clades, c).c_str());
            for (int e = 0; e < data.species.size(); ++e) {
                const CladeCellDecomposition d = decomposeCladeCell(layout, family, tables, c, e);
                const double sum = std::ldexp(d.sumScaled(), d.scale);
                QVERIFY2(relativeError(sum, expected[e]) < 1e-12,
                         qPrintable(QString("Π(%1, %2): terms %3, reference %4")
                                        .arg(QString::fromStdString(referenceCladeName(family.clades, c)))
                                        .arg(e)
                                        .arg(sum, 0, 'g', 17)
                                        .arg(double(expected[e]), 0, 'g', 17)));
                double shares = 0;
                for (const CellTerm& t : d.terms) {
                    QVERIFY(t.scaled > 0);
                    QCOMPARE(t.split >= 0, t.kind == CellTermKind::Speciation ||
                                               t.kind == CellTermKind::Duplication ||
                                               t.kind == CellTermKind::Transfer);
                    shares += d.share(t);
                }
                QVERIFY(std::abs(shares - 1) < 1e-12);
                ++cells;
            }
        }
        QCOMPARE(cells, family.clades.cladeCount() * data.species.size());
        for (int e = 0; e < data.species.size(); ++e) {
            const ExtinctionCellDecomposition d = decomposeExtinctionCell(layout, tables, e);
            QVERIFY2(relativeError(d.sum(), res["E"][e]) < 1e-12, qPrintable(QString("E(%1)").arg(e)));
            double bar = 0;
            for (const auto& [h, share] : d.recipients) {
                QVERIFY(h != e && !data.species.isAncestorOrSelf(h, e));
                bar += share;
            }
            QCOMPARE(int(d.recipients.size()), data.species.recipientCount(e, TransferConstraint::Parents));
            QVERIFY2(relativeError(bar, res["Ebar"][e]) < 1e-12, qPrintable(QString("Ē(%1)").arg(e)));
        }
    }

    // Families deep enough that whole rows are scaled: the terms, scaled like their row, still add
    // up to the cell, under every transfer constraint, whose recipients are those of the definition
    // (reference_model.hpp).
    void simulatedCellsAddUpToTheTables() {
        for (TransferConstraint constraint :
             {TransferConstraint::Parents, TransferConstraint::None, TransferConstraint::RelDated}) {
            auto data = simulatedDataset(
                simulatedSpeciesTree(12, 2), 3,
                [](int) {
                    return Rates{0.3, 0.2, 0.3};
                },
                6);
            data->transferConstraint = constraint;
            const RateParameters theta(RateMode::Global, data->species.size(), 3, {0.3, 0.2, 0.3});
            const std::vector<FamilyTables> tables =
                makeCpuBackend(data)->familyTables(theta, SolverOptions{}, {0, 1, 2});
            const SpeciesLayout layout(data->species, constraint);
            const std::vector<std::vector<int>> R = referenceRecipients(data->species, constraint);
            double worst = 0;
            for (int f = 0; f < 3; ++f) {
                const GeneFamily& family = data->families[f];
                for (int c = 0; c < family.clades.cladeCount(); ++c)
                    for (int e = 0; e < data->species.size(); ++e) {
                        const CladeCellDecomposition d = decomposeCladeCell(layout, family, tables[f], c, e);
                        worst = std::max(worst, relativeError(d.sumScaled(), d.storedScaled));
                    }
                for (int e = 0; e < data->species.size(); ++e) {
                    const ExtinctionCellDecomposition d = decomposeExtinctionCell(layout, tables[f], e);
                    worst = std::max(worst, relativeError(d.sum(), d.stored));
                    double bar = 0;
                    std::vector<int> recipients;
                    for (const auto& share : d.recipients) {
                        bar += share.second;
                        recipients.push_back(share.first);
                    }
                    QCOMPARE(recipients, R[e]);
                    worst = std::max(worst, relativeError(bar, d.barStored));
                }
            }
            QVERIFY2(worst < 1e-12, qPrintable(QString("worst relative error %1").arg(worst)));
        }
    }

    // A single gene: at its own leaf the observation term is pS exactly and there is no split term;
    // elsewhere there is no observation term; cells outside the tables are refused.
    void singleGeneAndBadCells() {
        LoadedInput in = loadShared("tiny", "species.nwk", 3);
        const Dataset& data = *in.dataset;
        const RateParameters theta(RateMode::Global, data.species.size(), 1, {0.1, 0.2, 0.15});
        const FamilyTables tables =
            makeCpuBackend(in.dataset)->familyTables(theta, SolverOptions{}, {0}).front();
        const SpeciesLayout layout(data);
        const GeneFamily& family = data.families[0];
        const int leafClade = 0;
        QVERIFY(family.clades.cladeGene[leafClade] >= 0);
        const int own = family.geneSpecies[family.clades.cladeGene[leafClade]];
        const CladeCellDecomposition at = decomposeCladeCell(layout, family, tables, leafClade, own);
        QVERIFY(!at.terms.empty());
        QVERIFY(at.terms.front().kind == CellTermKind::Observation);
        QCOMPARE(at.value(at.terms.front()), tables.p.pS[own]);
        for (const CellTerm& t : at.terms)
            QCOMPARE(t.split, -1);
        const int other = own == 0 ? 1 : 0;
        for (const CellTerm& t : decomposeCladeCell(layout, family, tables, leafClade, other).terms)
            QVERIFY(t.kind != CellTermKind::Observation);
        QCOMPARE(eventName(CellTermKind::TransferLossHere), std::string("TL"));
        QCOMPARE(termEquation(CellTermKind::DuplicationLoss), std::string("2 pD(e) · E(e) Π(γ,e)"));
        QVERIFY_THROWS_EXCEPTION(std::out_of_range,
                                 decomposeCladeCell(layout, family, tables, family.clades.cladeCount(), 0));
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, decomposeCladeCell(layout, family, tables, 0, -1));
        QVERIFY_THROWS_EXCEPTION(std::out_of_range,
                                 decomposeExtinctionCell(layout, tables, data.species.size()));
    }
};

QTEST_GUILESS_MAIN(CellDecomposition)
#include "test_cell_decomposition.moc"
