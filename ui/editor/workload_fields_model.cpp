// WorkloadFieldsModel: each field is a getter and a parsing setter over the tree model's workload, built
// per row type; keys are the workload file's JSON keys so validation issues land on the right field.
#include "ui/editor/workload_fields_model.h"

#include "ui/common/format_units.h"
#include <algorithm>

#include <QBrush>
#include <QColor>

#include "engine/model/units.h"
#include "engine/workload/kernel_types.h"
#include "engine/workload/workload_names.h"

namespace streamscope::ui {

namespace {

template <typename E> QStringList choicesOf()
{
    QStringList out;
    for (std::string_view name : engine::enumNames<E>())
        out << qs(name);
    return out;
}

} // namespace

WorkloadFieldsModel::WorkloadFieldsModel(WorkloadTreeModel *tree, QObject *parent) :
    QAbstractTableModel(parent), m_tree(tree)
{
    connect(m_tree, &QAbstractItemModel::modelReset, this, [this] { setNode({}); });
    // A name edited in the tree shows here too.
    connect(m_tree, &QAbstractItemModel::dataChanged, this, [this] {
        if (!m_fields.empty())
            emit dataChanged(index(0, ValueColumn), index(int(m_fields.size()) - 1, ValueColumn));
    });
}

void WorkloadFieldsModel::setNode(const WorkloadTreeModel::Node &node)
{
    beginResetModel();
    m_node = node;
    rebuild();
    endResetModel();
}

void WorkloadFieldsModel::setIssues(const std::vector<engine::WorkloadIssue> &issues)
{
    m_issues = issues;
    if (!m_fields.empty())
        emit dataChanged(index(0, 0), index(int(m_fields.size()) - 1, ColumnCount - 1));
}

int WorkloadFieldsModel::rowOf(const QString &key) const
{
    for (std::size_t i = 0; i < m_fields.size(); ++i)
        if (m_fields[i].key == key)
            return int(i);
    return -1;
}

void WorkloadFieldsModel::rebuild()
{
    m_fields.clear();
    const engine::Workload &w = m_tree->workload();
    switch (m_node.type) {
    case WorkloadTreeModel::NodeType::Settings: buildSettingsFields(); break;
    case WorkloadTreeModel::NodeType::Buffer:
        if (m_node.buffer >= 0 && m_node.buffer < int(w.buffers.size()))
            buildBufferFields(m_node.buffer);
        break;
    case WorkloadTreeModel::NodeType::Stream:
        if (m_node.stream >= 0 && m_node.stream < int(w.streams.size()))
            buildStreamFields(m_node.stream);
        break;
    case WorkloadTreeModel::NodeType::Op:
        if (m_node.stream >= 0 && m_node.stream < int(w.streams.size()) && m_node.op >= 0
            && m_node.op < int(w.streams[std::size_t(m_node.stream)].ops.size()))
            buildOpFields(m_node.stream, m_node.op);
        break;
    default: break;
    }
}

// Field factories: each takes an accessor so that the workload may be reallocated between edits.
namespace {

using Ws = engine::Workload;

template <typename Get> auto textSetter(Get ref, bool required)
{
    return [ref, required](const QString &text) -> QString {
        const QString trimmed = text.trimmed();
        if (required && trimmed.isEmpty())
            return QObject::tr("a non-empty name");
        ref() = trimmed.toStdString();
        return {};
    };
}

template <typename Int, typename Get> auto intSetter(Get ref, long long min, long long max)
{
    return [ref, min, max](const QString &text) -> QString {
        bool ok = false;
        const long long v = text.trimmed().toLongLong(&ok);
        if (!ok || v < min || v > max)
            return QObject::tr("a whole number from %1 to %2").arg(min).arg(max);
        ref() = Int(v);
        return {};
    };
}

template <typename Get> auto bytesSetter(Get ref)
{
    return [ref](const QString &text) -> QString {
        const auto v = engine::parseByteSize(text.trimmed().toStdString());
        if (!v)
            return QObject::tr("a size such as 4096, 64 KiB, 16 MiB or 1 GiB");
        ref() = *v;
        return {};
    };
}

template <typename Get> auto durationSetter(Get ref)
{
    return [ref](const QString &text) -> QString {
        const auto v = engine::parseDuration(text.trimmed().toStdString());
        if (!v)
            return QObject::tr("a duration such as 500 ns, 20 us, 1.5 ms or 2 s");
        ref() = *v;
        return {};
    };
}

template <typename E, typename Get> auto enumSetter(Get ref)
{
    return [ref](const QString &text) -> QString {
        const auto v = engine::enumFromName<E>(text.trimmed().toStdString());
        if (!v)
            return QObject::tr("one of %1").arg(choicesOf<E>().join(QStringLiteral(", ")));
        ref() = *v;
        return {};
    };
}

// A yes-or-no key, shown and typed as the file writes it: "true" or "false".
template <typename Get> auto boolSetter(Get ref)
{
    return [ref](const QString &text) -> QString {
        const QString t = text.trimmed();
        if (t != QLatin1String("true") && t != QLatin1String("false"))
            return QObject::tr("true or false");
        ref() = t == QLatin1String("true");
        return {};
    };
}

QString boolText(bool value)
{
    return value ? QStringLiteral("true") : QStringLiteral("false");
}

// Where prefetch and advise act: -1 is the host (cudaCpuDeviceId), otherwise a device index.
template <typename Get> auto locationSetter(Get ref)
{
    return [ref](const QString &text) -> QString {
        const QString t = text.trimmed();
        if (t == QLatin1String("host")) {
            ref() = -1;
            return {};
        }
        bool ok = false;
        const int v = t.toInt(&ok);
        if (!ok || v < -1)
            return QObject::tr("\"host\" or a device index (0, 1, ...)");
        ref() = v;
        return {};
    };
}

} // namespace

void WorkloadFieldsModel::buildSettingsFields()
{
    WorkloadTreeModel *tree = m_tree;
    auto w = [tree]() -> Ws & { return tree->mutableWorkload(); };
    m_fields.push_back({QStringLiteral("name"),
                        tr("Name"),
                        [w] { return QString::fromStdString(w().name); },
                        textSetter([w]() -> std::string & { return w().name; }, true),
                        {}});
    m_fields.push_back({QStringLiteral("description"),
                        tr("What to look for"),
                        [w] { return QString::fromStdString(w().description); },
                        textSetter([w]() -> std::string & { return w().description; }, false),
                        {}});
    m_fields.push_back({QStringLiteral("device"),
                        tr("Device"),
                        [w] { return QString::number(w().device); },
                        intSetter<int>([w]() -> int & { return w().device; }, 0, 63),
                        {}});
    m_fields.push_back(
        {QStringLiteral("defaultStream"), tr("Default stream"), [w] { return qs(engine::enumName(w().defaultStream)); },
         enumSetter<engine::DefaultStreamMode>([w]() -> engine::DefaultStreamMode & { return w().defaultStream; }),
         choicesOf<engine::DefaultStreamMode>()});
    m_fields.push_back(
        {QStringLiteral("issueOrder"), tr("Issue order"), [w] { return qs(engine::enumName(w().issueOrder)); },
         [w](const QString &text) -> QString {
             const QString error =
                 enumSetter<engine::IssueOrder>([w]() -> engine::IssueOrder & { return w().issueOrder; })(text);
             if (error.isEmpty())
                 engine::buildSchedule(w());
             return error;
         },
         choicesOf<engine::IssueOrder>()});
    m_fields.push_back({QStringLiteral("warmup"),
                        tr("Warm-up repetitions"),
                        [w] { return QString::number(w().warmup); },
                        intSetter<int>([w]() -> int & { return w().warmup; }, 0, 1000),
                        {}});
    m_fields.push_back({QStringLiteral("repetitions"),
                        tr("Measured repetitions"),
                        [w] { return QString::number(w().repetitions); },
                        intSetter<int>([w]() -> int & { return w().repetitions; }, 1, 10000),
                        {}});
}

void WorkloadFieldsModel::buildBufferFields(int buffer)
{
    WorkloadTreeModel *tree = m_tree;
    auto b = [tree, buffer]() -> engine::BufferSpec & { return tree->mutableWorkload().buffers[std::size_t(buffer)]; };
    m_fields.push_back(
        {QStringLiteral("name"),
         tr("Name"),
         [b] { return QString::fromStdString(b().name); },
         [tree, buffer](const QString &text) -> QString {
             // Through the tree, which renames references too.
             const QModelIndex index = tree->indexOf({WorkloadTreeModel::NodeType::Buffer, buffer, -1, -1});
             return tree->setData(index, text) ? QString() : QObject::tr("a non-empty name");
         },
         {}});
    m_fields.push_back({QStringLiteral("kind"), tr("Memory kind"), [b] { return qs(engine::enumName(b().kind)); },
                        enumSetter<engine::BufferKind>([b]() -> engine::BufferKind & { return b().kind; }),
                        choicesOf<engine::BufferKind>()});
    m_fields.push_back({QStringLiteral("bytes"),
                        tr("Size"),
                        [b] { return QString::fromStdString(engine::formatBytes(b().bytes)); },
                        bytesSetter([b]() -> std::uint64_t & { return b().bytes; }),
                        {}});
}

void WorkloadFieldsModel::buildStreamFields(int stream)
{
    WorkloadTreeModel *tree = m_tree;
    auto s = [tree, stream]() -> engine::StreamSpec & { return tree->mutableWorkload().streams[std::size_t(stream)]; };
    m_fields.push_back(
        {QStringLiteral("name"),
         tr("Name"),
         [s] { return QString::fromStdString(s().name); },
         [tree, stream](const QString &text) -> QString {
             const QModelIndex index = tree->indexOf({WorkloadTreeModel::NodeType::Stream, -1, stream, -1});
             return tree->setData(index, text) ? QString() : QObject::tr("a non-empty name");
         },
         {}});
    m_fields.push_back({QStringLiteral("useDefaultStream"),
                        tr("Use the default stream"),
                        [s] { return boolText(s().useDefaultStream); },
                        boolSetter([s]() -> bool & { return s().useDefaultStream; }),
                        {QStringLiteral("false"), QStringLiteral("true")}});
    if (!s().useDefaultStream) {
        m_fields.push_back({QStringLiteral("flags"), tr("Flags"), [s] { return qs(engine::enumName(s().flags)); },
                            enumSetter<engine::StreamFlags>([s]() -> engine::StreamFlags & { return s().flags; }),
                            choicesOf<engine::StreamFlags>()});
        m_fields.push_back({QStringLiteral("priority"),
                            tr("Priority (lower = higher)"),
                            [s] { return QString::number(s().priority); },
                            intSetter<int>([s]() -> int & { return s().priority; }, -100, 100),
                            {}});
    }
}

void WorkloadFieldsModel::buildOpFields(int stream, int opIndex)
{
    WorkloadTreeModel *tree = m_tree;
    auto op = [tree, stream, opIndex]() -> engine::OpSpec & {
        return tree->mutableWorkload().streams[std::size_t(stream)].ops[std::size_t(opIndex)];
    };
    QStringList bufferNames;
    for (const engine::BufferSpec &b : tree->workload().buffers)
        bufferNames << QString::fromStdString(b.name);
    QStringList streamNames{QString()};
    for (const engine::StreamSpec &s : tree->workload().streams)
        streamNames << QString::fromStdString(s.name);

    auto text = [&](const QString &key, const QString &label, std::string engine::OpSpec::*member, bool required,
                    QStringList choices = {}) {
        m_fields.push_back({key, label, [op, member] { return QString::fromStdString(op().*member); },
                            textSetter([op, member]() -> std::string & { return op().*member; }, required),
                            std::move(choices)});
    };
    auto bytes = [&](const QString &key, const QString &label, std::uint64_t engine::OpSpec::*member) {
        m_fields.push_back({key,
                            label,
                            [op, member] { return QString::fromStdString(engine::formatBytes(op().*member)); },
                            bytesSetter([op, member]() -> std::uint64_t & { return op().*member; }),
                            {}});
    };
    auto duration = [&](const QString &key, const QString &label, std::int64_t engine::OpSpec::*member) {
        m_fields.push_back({key,
                            label,
                            [op, member] { return QString::fromStdString(engine::formatDuration(op().*member)); },
                            durationSetter([op, member]() -> std::int64_t & { return op().*member; }),
                            {}});
    };
    auto integer = [&](const QString &key, const QString &label, int engine::OpSpec::*member, long long min,
                       long long max) {
        m_fields.push_back({key,
                            label,
                            [op, member] { return QString::number(op().*member); },
                            intSetter<int>([op, member]() -> int & { return op().*member; }, min, max),
                            {}});
    };
    auto location = [&] {
        m_fields.push_back(
            {QStringLiteral("location"),
             tr("Location"),
             [op] { return op().location < 0 ? QStringLiteral("host") : QString::number(op().location); },
             locationSetter([op]() -> int & { return op().location; }),
             {QStringLiteral("host"), QStringLiteral("0"), QStringLiteral("1")}});
    };
    auto span = [&] {
        text(QStringLiteral("buffer"), tr("Buffer"), &engine::OpSpec::buffer, true, bufferNames);
        bytes(QStringLiteral("offset"), tr("Offset"), &engine::OpSpec::dstOffset);
        bytes(QStringLiteral("bytes"), tr("Bytes"), &engine::OpSpec::bytes);
    };

    text(QStringLiteral("name"), tr("Name"), &engine::OpSpec::name, true);
    m_fields.push_back({QStringLiteral("op"), tr("Operation"), [op] { return qs(engine::enumName(op().type)); },
                        enumSetter<engine::OpType>([op]() -> engine::OpType & { return op().type; }),
                        choicesOf<engine::OpType>()});
    const engine::OpSpec &current = op();
    switch (current.type) {
    case engine::OpType::Copy:
        m_fields.push_back(
            {QStringLiteral("direction"), tr("Direction"), [op] { return qs(engine::enumName(op().direction)); },
             enumSetter<engine::CopyDirection>([op]() -> engine::CopyDirection & { return op().direction; }),
             choicesOf<engine::CopyDirection>()});
        m_fields.push_back({QStringLiteral("api"), tr("API"), [op] { return qs(engine::enumName(op().api)); },
                            enumSetter<engine::CopyApi>([op]() -> engine::CopyApi & { return op().api; }),
                            choicesOf<engine::CopyApi>()});
        text(QStringLiteral("src"), tr("Source buffer"), &engine::OpSpec::src, true, bufferNames);
        text(QStringLiteral("dst"), tr("Destination buffer"), &engine::OpSpec::dst, true, bufferNames);
        bytes(QStringLiteral("bytes"), tr("Bytes"), &engine::OpSpec::bytes);
        bytes(QStringLiteral("srcOffset"), tr("Source offset"), &engine::OpSpec::srcOffset);
        bytes(QStringLiteral("dstOffset"), tr("Destination offset"), &engine::OpSpec::dstOffset);
        break;
    case engine::OpType::Kernel:
        m_fields.push_back({QStringLiteral("type"), tr("Kernel type"),
                            [op] { return qs(engine::enumName(op().kernelType)); },
                            enumSetter<engine::KernelType>([op]() -> engine::KernelType & { return op().kernelType; }),
                            choicesOf<engine::KernelType>()});
        // The type's fields, as its row in the kernel-type table lists them (kernel_types.h).
        for (const engine::KernelField field : engine::kernelTypeInfo(current.kernelType).fields) {
            switch (field) {
            case engine::KernelField::Duration:
                duration(QStringLiteral("duration"), tr("Duration"), &engine::OpSpec::durationNs);
                break;
            case engine::KernelField::BufferSpan: span(); break;
            case engine::KernelField::Gemm: gemmFields(op); break;
            case engine::KernelField::LaunchShape:
                integer(QStringLiteral("blocks"), tr("Blocks"), &engine::OpSpec::blocks, 1, 1 << 30);
                integer(QStringLiteral("threads"), tr("Threads per block"), &engine::OpSpec::threadsPerBlock, 1, 1024);
                break;
            case engine::KernelField::Pdl:
                m_fields.push_back({QStringLiteral("pdl"),
                                    tr("Programmatic dependent launch"),
                                    [op] { return boolText(op().pdl); },
                                    boolSetter([op]() -> bool & {
                                        op().pdlGiven = true; // asked for a value: written, true or false
                                        return op().pdl;
                                    }),
                                    {QStringLiteral("false"), QStringLiteral("true")}});
                break;
            }
        }
        break;
    case engine::OpType::Memset:
        span();
        integer(QStringLiteral("value"), tr("Byte value"), &engine::OpSpec::value, 0, 255);
        break;
    case engine::OpType::EventRecord:
    case engine::OpType::EventWait: text(QStringLiteral("event"), tr("Event"), &engine::OpSpec::event, true); break;
    case engine::OpType::Sync:
        m_fields.push_back({QStringLiteral("target"), tr("Wait for"),
                            [op] { return qs(engine::enumName(op().syncTarget)); },
                            enumSetter<engine::SyncTarget>([op]() -> engine::SyncTarget & { return op().syncTarget; }),
                            choicesOf<engine::SyncTarget>()});
        if (current.syncTarget == engine::SyncTarget::Stream)
            text(QStringLiteral("stream"), tr("Stream (empty: this one)"), &engine::OpSpec::syncStream, false,
                 streamNames);
        else if (current.syncTarget == engine::SyncTarget::Event)
            text(QStringLiteral("event"), tr("Event"), &engine::OpSpec::event, true);
        break;
    case engine::OpType::Prefetch:
        span();
        location();
        break;
    case engine::OpType::Advise:
        span();
        m_fields.push_back({QStringLiteral("advice"), tr("Advice"), [op] { return qs(engine::enumName(op().advise)); },
                            enumSetter<engine::AdviseKind>([op]() -> engine::AdviseKind & { return op().advise; }),
                            choicesOf<engine::AdviseKind>()});
        location();
        break;
    case engine::OpType::Attach:
        text(QStringLiteral("buffer"), tr("Buffer"), &engine::OpSpec::buffer, true, bufferNames);
        m_fields.push_back({QStringLiteral("mode"), tr("Attach to"), [op] { return qs(engine::enumName(op().attach)); },
                            enumSetter<engine::AttachKind>([op]() -> engine::AttachKind & { return op().attach; }),
                            choicesOf<engine::AttachKind>()});
        break;
    case engine::OpType::HostWork:
        duration(QStringLiteral("duration"), tr("Host busy for"), &engine::OpSpec::hostNs);
        break;
    case engine::OpType::Collective: buildCollectiveFields(op); break;
    }
}

// C (m x n) = A (m x k) x B (k x n); cuBLAS chooses the blocks and threads.
void WorkloadFieldsModel::gemmFields(const std::function<engine::OpSpec &()> &op)
{
    const auto dim = [&](const QString &key, const QString &label, std::int32_t engine::GemmShape::*member) {
        m_fields.push_back({key,
                            label,
                            [op, member] { return QString::number(op().gemm.*member); },
                            intSetter<std::int32_t>([op, member]() -> std::int32_t & { return op().gemm.*member; }, 1,
                                                    engine::kMaxGemmDim),
                            {}});
    };
    dim(QStringLiteral("m"), tr("m (rows of A and C)"), &engine::GemmShape::m);
    dim(QStringLiteral("n"), tr("n (columns of B and C)"), &engine::GemmShape::n);
    dim(QStringLiteral("k"), tr("k (the inner dimension)"), &engine::GemmShape::k);
    m_fields.push_back({QStringLiteral("dtype"), tr("Element type"),
                        [op] { return qs(engine::enumName(op().gemm.dtype)); },
                        enumSetter<engine::GemmDtype>([op]() -> engine::GemmDtype & { return op().gemm.dtype; }),
                        choicesOf<engine::GemmDtype>()});
}

// NCCL's call on this stream's GPU; every GPU of the communicator makes the same one.
void WorkloadFieldsModel::buildCollectiveFields(const std::function<engine::OpSpec &()> &op)
{
    const engine::OpSpec &current = op();
    m_fields.push_back(
        {QStringLiteral("type"), tr("Collective"), [op] { return qs(engine::enumName(op().collective.type)); },
         enumSetter<engine::CollectiveType>([op]() -> engine::CollectiveType & { return op().collective.type; }),
         choicesOf<engine::CollectiveType>()});
    m_fields.push_back({QStringLiteral("bytes"),
                        tr("Size (as nccl-tests counts it)"),
                        [op] { return QString::fromStdString(engine::formatBytes(op().bytes)); },
                        bytesSetter([op]() -> std::uint64_t & { return op().bytes; }),
                        {}});
    m_fields.push_back(
        {QStringLiteral("dtype"), tr("Element type"), [op] { return qs(engine::enumName(op().collective.dtype)); },
         enumSetter<engine::CollectiveDtype>([op]() -> engine::CollectiveDtype & { return op().collective.dtype; }),
         choicesOf<engine::CollectiveDtype>()});
    const engine::CollectiveType type = current.collective.type;
    if (engine::reduces(type))
        m_fields.push_back(
            {QStringLiteral("reduce"), tr("Reduction"), [op] { return qs(engine::enumName(op().collective.reduce)); },
             enumSetter<engine::ReduceOp>([op]() -> engine::ReduceOp & { return op().collective.reduce; }),
             choicesOf<engine::ReduceOp>()});
    const auto gpu = [&, op](const QString &key, const QString &label, int engine::CollectiveSpec::*member) {
        m_fields.push_back(
            {key,
             label,
             [op, member] { return QString::number(op().collective.*member); },
             intSetter<int>([op, member]() -> int & { return op().collective.*member; }, 0, engine::kMaxDeviceIndex),
             {}});
    };
    if (type == engine::CollectiveType::Broadcast)
        gpu(QStringLiteral("root"), tr("Root GPU"), &engine::CollectiveSpec::root);
    if (type == engine::CollectiveType::Send || type == engine::CollectiveType::Recv)
        gpu(QStringLiteral("peer"), tr("Peer GPU"), &engine::CollectiveSpec::peer);
}

int WorkloadFieldsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_fields.size());
}

int WorkloadFieldsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant WorkloadFieldsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Field &field = m_fields[std::size_t(index.row())];
    if (role == KeyRole)
        return field.key;
    if (role == ChoicesRole)
        return field.choices;
    // Issues whose JSON path ends in this field of this row.
    const QString prefix = WorkloadTreeModel::jsonPathOf(m_node) + QLatin1Char('/') + field.key;
    QStringList problems;
    for (const engine::WorkloadIssue &issue : m_issues) {
        const QString path = QString::fromStdString(issue.jsonPath);
        if (path == prefix || path.startsWith(prefix + QLatin1Char('/')))
            problems << QString::fromStdString(issue.message);
    }
    if (role == Qt::ToolTipRole)
        return problems.isEmpty() ? QVariant() : QVariant(problems.join(QLatin1Char('\n')));
    if (role == Qt::ForegroundRole && !problems.isEmpty())
        return QBrush(QColor(0xd5, 0x5e, 0x00));
    if (role != Qt::DisplayRole && role != Qt::EditRole)
        return {};
    if (index.column() == FieldColumn)
        return problems.isEmpty() ? field.label : field.label + QStringLiteral(" ⚠");
    return field.get();
}

bool WorkloadFieldsModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (role != Qt::EditRole || !(flags(index) & Qt::ItemIsEditable))
        return false;
    const std::size_t row = std::size_t(index.row());
    const QString text = value.toString();
    if (text == m_fields[row].get())
        return true;
    const QString key = m_fields[row].key;
    const QString oldText = m_fields[row].get();
    const QString expected = m_fields[row].set(text);
    if (!expected.isEmpty()) {
        emit editRejected(tr("%1: \"%2\" is not valid here; expected %3.").arg(m_fields[row].label, text, expected));
        return false;
    }
    // Some fields decide which others exist (an op's type, a kernel's type, a sync's target).
    std::vector<QString> keysBefore;
    for (const Field &f : m_fields)
        keysBefore.push_back(f.key);
    std::vector<Field> old = std::move(m_fields);
    rebuild();
    std::vector<QString> keysAfter;
    for (const Field &f : m_fields)
        keysAfter.push_back(f.key);
    const bool fieldsChanged = keysBefore != keysAfter;
    if (fieldsChanged) {
        // Views must see the old rows until the reset begins.
        std::vector<Field> fresh = std::move(m_fields);
        m_fields = std::move(old);
        beginResetModel();
        m_fields = std::move(fresh);
        endResetModel();
    } else {
        emit dataChanged(index.siblingAtColumn(0), index.siblingAtColumn(ValueColumn));
    }
    m_tree->rowEdited(m_node);
    QStringList removedKeys;
    for (const QString &k : keysBefore)
        if (std::find(keysAfter.begin(), keysAfter.end(), k) == keysAfter.end())
            removedKeys << k;
    emit fieldEdited(m_node, key, oldText, text.trimmed(), fieldsChanged, removedKeys);
    return true;
}

Qt::ItemFlags WorkloadFieldsModel::flags(const QModelIndex &index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
    if (index.column() == ValueColumn)
        f |= Qt::ItemIsEditable;
    return f;
}

QVariant WorkloadFieldsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    return section == FieldColumn ? tr("Field") : section == ValueColumn ? tr("Value") : QVariant();
}

} // namespace streamscope::ui
