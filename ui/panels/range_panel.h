// RangePanel: the statistics of the range measured in the timeline (shift+drag, or a drag in the ruler):
// per op name the count, total, mean, min, max and share of the range (a pipeline's chunks of one stage
// one row); per lane the busy time; copy bytes and rates per direction, copy/compute overlap and
// concurrency, in a column left of the two tables (which take the dock's height). "Zoom to range" shows just the
// range; "Export CSV…" writes the tables (engine::rangeStatisticsCsv, atomically). Bound to a
// TraceDocument, whose range it shows.
#pragma once

#include <QPointer>
#include <QWidget>

#include "ui/common/connection_list.h"
#include "ui/document/trace_document.h"

class QLabel;
class QPushButton;
class QSplitter;
class QStandardItemModel;
class QTableView;

namespace streamscope::ui {

class RangePanel : public QWidget {
    Q_OBJECT
public:
    // The raw number behind a cell (ns, fraction, count), for sorting and tests.
    static constexpr int RawRole = Qt::UserRole + 1;

    explicit RangePanel(QWidget *parent = nullptr);
    void setDocument(TraceDocument *document);

    // Writes the range's statistics as CSV; false with *error naming the file and the cause.
    bool exportCsv(const QString &path, QString *error = nullptr) const;

    QString headingText() const;
    QString totalsText() const;
    QStandardItemModel *nameModel() const { return m_names; }
    QStandardItemModel *laneModel() const { return m_lanes; }
    QPushButton *zoomButton() const { return m_zoom; }
    QPushButton *exportButton() const { return m_export; }
    // How many whole rows the per-name table shows at its present height.
    int visibleNameRows() const;

signals:
    // The range in the timeline's time (ns from the repetition's start).
    void zoomToRangeRequested(qint64 startNs, qint64 endNs);

private:
    void refresh();
    void exportDialog();

    QPointer<TraceDocument> m_document;
    ConnectionList m_connections;
    QLabel *m_heading;
    QLabel *m_totals;
    QStandardItemModel *m_names;
    QStandardItemModel *m_lanes;
    QTableView *m_nameTable;
    QTableView *m_laneTable;
    QPushButton *m_zoom;
    QPushButton *m_export;
    QSplitter *m_split;
};

} // namespace streamscope::ui
