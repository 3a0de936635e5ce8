#pragma once
// Teaching: the story of the reconciliation the Reconciliations view draws, told draw by draw as
// the stochastic backtracking made it (core/recon/backtrack_story): the origination species, then
// at every (clade, species) the event drawn with the probability of each alternative, and each
// transfer's recipient. The drawing fades what is not told yet and rings the current event. The
// story is retold from the seed, rates and solver options the samples were drawn with, on a
// worker thread through the session's backend, and checked against the sample drawn.
#include "data/dataset.hpp"
#include "engine/backend.hpp"
#include "model/rate_parameters.hpp"
#include "recon/backtrack_story.hpp"
#include "recon/sampling_run.hpp"
#include "views/reconciliation_view.hpp"

#include <QFutureWatcher>
#include <QWidget>
#include <memory>
#include <optional>

class QPushButton;
class QTableWidget;

namespace gpurec::ui {

class ElidingLabel;
class StepControls;

// How a group of samples was drawn: a story retells sample k from it.
struct SamplingSource {
    RateParameters theta;
    SamplingSettings settings;
};

struct StoryOutcome {
    int family = -1, sample = -1;
    std::optional<BacktrackStory> story;
    QString error;
};

// Safe on any thread but the engine's (`tables` may wait for it). Fails with a message when the
// story does not rebuild `expected` (the samples were drawn elsewhere or at other rates).
StoryOutcome tellStory(std::shared_ptr<const Dataset> data, const FamilyTablesSource& tables,
                       const SamplingSource& source, int family, int sample, const Reconciliation& expected);

class BacktrackPanel : public QWidget {
    Q_OBJECT
  public:
    static constexpr int kMaxAlternativeRows = 40; // the rest are summed in one row

    explicit BacktrackPanel(QWidget* parent = nullptr);
    void setDataset(std::shared_ptr<const Dataset> data, FamilyTablesSource tables);
    // The sample on show: sample `index` of dataset family `family`, drawn as `source` says (for a
    // session's samples: the current rates and seed, checked when told). family −1: no single
    // sample is on show, for the reason `why`. Ends a story of another sample.
    void setSample(int family, int index, const Reconciliation* sample, SamplingSource source,
                   const QString& why = {});
    void tell(); // the Tell button: retells the sample on show (not with several speciation categories)

    const std::optional<BacktrackStory>& story() const { return story_; }
    // The story told is always of the sample on show (another one ends it).
    int storyFamily() const { return story_ ? family_ : -1; }
    int storySample() const { return story_ ? index_ : -1; }
    StepControls* controls() const { return controls_; }
    QTableWidget* alternatives() const { return alternatives_; }
    QString caption() const;
    // The drawing's state at a step: events told up to it, the current one (−1: before the first).
    ReconciliationView::StoryProgress progressAt(int step) const;
    // The keys of controls(), installed by the owner on the view the story is drawn in.
    static std::vector<std::pair<QString, QString>> keyHelp();

  signals:
    // For the drawing: the story's progress; nullopt when no story is told.
    void progressChanged(std::optional<ReconciliationView::StoryProgress> progress);
    // The (clade, species) of a step's draw, for the linked views (Cell equation); species −1 for
    // the origination.
    void cellShown(int family, int clade, int species);
    void logMessage(const QString& text);

  private:
    // A sample is on show and its story can be retold (a model of one speciation category).
    bool canTell() const;
    void showStep(int step);
    void endStory(const QString& message);
    QString outcomeText(const StoryStep& step, const StoryAlternative& a) const;

    std::shared_ptr<const Dataset> data_;
    FamilyTablesSource tables_;
    int family_ = -1, index_ = -1;
    const Reconciliation* sample_ = nullptr;
    SamplingSource source_;
    std::optional<BacktrackStory> story_;
    QPushButton* tell_;
    StepControls* controls_;
    ElidingLabel* caption_;
    QTableWidget* alternatives_;
    QFutureWatcher<StoryOutcome> watcher_;
};

} // namespace gpurec::ui
