// OpDeltaModel: the one per-op delta table, for both comparisons of two traces. The trace diff
// (engine::diffTraces: any two traces, per-op medians, A and B) and the Nsight comparison
// (engine::compareWithNsight: a run against Nsight's capture of it, op by op per repetition) both fill
// it, through the one aligner behind them (engine/analysis/op_alignment.h). One row per aligned op (A's
// stream order, then position), then the ops found on one side only. Columns a comparison has no
// values for (GB/s and verdicts for Nsight, repetitions compared for a diff) report so through
// hasColumn(), and the view hides them.
#pragma once

#include <QAbstractTableModel>
#include <QString>

#include <array>
#include <optional>
#include <vector>

#include "engine/analysis/nsight_compare.h"
#include "engine/analysis/trace_diff.h"

namespace streamscope::ui {

struct OpDeltaRow {
    enum class Match : std::uint8_t { ByName, ByOrder, OnlyA, OnlyB };
    QString lane; // A's stream ("host" for host-only ops); B's for an op only in B
    QString laneB; // B's stream when it is another one (a synchronous copy on the default stream)
    QString laneNote; // why, where the comparison knows (engine::NsightOpDelta::laneNote)
    QString nameA, nameB; // empty on the side that lacks the op
    engine::OpKind kind = engine::OpKind::Other;
    Match match = Match::ByName;
    int samples = -1; // repetitions compared (Nsight comparison), -1: not counted
    std::optional<double> startA, startDelta; // ns: A's start from its repetition's start; B - A
    std::optional<double> durationA, durationB, durationDelta; // ns; B - A
    std::optional<double> gbpsA, gbpsB;
    std::optional<engine::Verdict> verdict; // B's duration against A's, with run-to-run noise
};

class OpDeltaModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        StreamColumn,
        NameAColumn,
        NameBColumn,
        KindColumn,
        MatchColumn,
        SamplesColumn,
        DurationAColumn,
        DurationBColumn,
        DurationDeltaColumn,
        DurationDeltaPctColumn,
        VerdictColumn,
        StartAColumn,
        StartDeltaColumn,
        GBsAColumn,
        GBsBColumn,
        ColumnCount
    };
    static constexpr int SortRole = Qt::UserRole + 1; // raw numbers (ns, %, GB/s, counts) behind the cells

    explicit OpDeltaModel(QObject *parent = nullptr);

    // A diff: sides called "A" and "B".
    void setDiff(const engine::TraceDiff &diff);
    // A StreamScope run against Nsight's capture: sides called "StreamScope" and "Nsight".
    void setNsightComparison(const engine::NsightComparison &comparison);
    // What the headers and the "only in" rows call the two sides.
    void setSideNames(const QString &a, const QString &b);
    QString sideA() const { return m_sideA; }
    QString sideB() const { return m_sideB; }

    const std::vector<OpDeltaRow> &rows() const { return m_rows; }
    // Rows 0..matchedRows()-1 are aligned ops; the rest are found on one side only.
    int matchedRows() const { return m_matched; }
    // Whether any row has a value in the column (B's names: whether any differs from A's, or an op is
    // only in B).
    bool hasColumn(int column) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    void setRows(std::vector<OpDeltaRow> rows);
    QVariant display(const OpDeltaRow &row, int column) const;
    QVariant sortValue(const OpDeltaRow &row, int column) const;
    QVariant toolTip(const OpDeltaRow &row, int column) const;

    std::vector<OpDeltaRow> m_rows;
    int m_matched = 0;
    QString m_sideA = QStringLiteral("A");
    QString m_sideB = QStringLiteral("B");
    std::array<bool, ColumnCount> m_hasColumn{};
};

} // namespace streamscope::ui
