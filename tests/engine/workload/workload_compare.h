// Test helpers shared by the workload tests: QCOMPARE on the engine's enums, and field-by-field
// equality of two workloads (what "parseWorkload(workloadToJson(w)) == w in effect" means).
#pragma once

#include <QtTest>

#include "engine/model/errors.h"
#include "engine/workload/workload.h"

// QCOMPARE on the engine's enums: the engine's toString(BufferKind) (found by ADL) returns a
// string_view where QTest expects char *, so compare them as their numbers instead.
namespace QTest {
#define STREAMSCOPE_COMPARE_ENUM(E)                                                                                    \
    inline bool qCompare(E t1, E t2, const char *actual, const char *expected, const char *file, int line)             \
    {                                                                                                                  \
        return qCompare(static_cast<int>(t1), static_cast<int>(t2), actual, expected, file, line);                     \
    }
STREAMSCOPE_COMPARE_ENUM(streamscope::engine::BufferKind)
STREAMSCOPE_COMPARE_ENUM(streamscope::engine::OpType)
STREAMSCOPE_COMPARE_ENUM(streamscope::engine::CopyDirection)
STREAMSCOPE_COMPARE_ENUM(streamscope::engine::CopyApi)
STREAMSCOPE_COMPARE_ENUM(streamscope::engine::OpKind)
STREAMSCOPE_COMPARE_ENUM(streamscope::engine::MemKind)
STREAMSCOPE_COMPARE_ENUM(streamscope::engine::KernelType)
STREAMSCOPE_COMPARE_ENUM(streamscope::engine::SyncTarget)
STREAMSCOPE_COMPARE_ENUM(streamscope::engine::AdviseKind)
STREAMSCOPE_COMPARE_ENUM(streamscope::engine::AttachKind)
STREAMSCOPE_COMPARE_ENUM(streamscope::engine::StreamFlags)
STREAMSCOPE_COMPARE_ENUM(streamscope::engine::DefaultStreamMode)
STREAMSCOPE_COMPARE_ENUM(streamscope::engine::IssueOrder)
STREAMSCOPE_COMPARE_ENUM(streamscope::engine::PeerAccess)
STREAMSCOPE_COMPARE_ENUM(streamscope::engine::ErrorKind)
#undef STREAMSCOPE_COMPARE_ENUM
} // namespace QTest

namespace streamscope::engine::testing {

// Field-by-field equality of two workloads, except where ops came from (jsonPath, line).
inline void compareWorkloads(const Workload &a, const Workload &b)
{
    QCOMPARE(a.version, b.version);
    QCOMPARE(a.name, b.name);
    QCOMPARE(a.description, b.description);
    QCOMPARE(a.compare, b.compare);
    QCOMPARE(a.device, b.device);
    QCOMPARE(a.peerAccess, b.peerAccess);
    QCOMPARE(a.defaultStream, b.defaultStream);
    QCOMPARE(a.issueOrder, b.issueOrder);
    QCOMPARE(a.warmup, b.warmup);
    QCOMPARE(a.repetitions, b.repetitions);
    QVERIFY(a.nccl == b.nccl);
    QCOMPARE(a.buffers.size(), b.buffers.size());
    for (std::size_t i = 0; i < a.buffers.size(); ++i) {
        QCOMPARE(a.buffers[i].name, b.buffers[i].name);
        QCOMPARE(a.buffers[i].kind, b.buffers[i].kind);
        QCOMPARE(a.buffers[i].bytes, b.buffers[i].bytes);
        QCOMPARE(a.buffers[i].device, b.buffers[i].device);
    }
    QCOMPARE(a.threads.size(), b.threads.size());
    for (std::size_t t = 0; t < a.threads.size(); ++t) {
        QCOMPARE(a.threads[t].name, b.threads[t].name);
        QCOMPARE(a.threads[t].device, b.threads[t].device);
        QCOMPARE(a.threads[t].streams, b.threads[t].streams);
    }
    QCOMPARE(a.streams.size(), b.streams.size());
    for (std::size_t s = 0; s < a.streams.size(); ++s) {
        const StreamSpec &x = a.streams[s], &y = b.streams[s];
        QCOMPARE(x.name, y.name);
        QCOMPARE(x.flags, y.flags);
        QCOMPARE(x.priority, y.priority);
        QCOMPARE(x.useDefaultStream, y.useDefaultStream);
        QCOMPARE(x.device, y.device);
        QCOMPARE(x.thread, y.thread);
        QCOMPARE(x.ops.size(), y.ops.size());
        for (std::size_t o = 0; o < x.ops.size(); ++o) {
            const OpSpec &p = x.ops[o], &q = y.ops[o];
            QCOMPARE(p.type, q.type);
            QCOMPARE(p.name, q.name);
            QCOMPARE(p.direction, q.direction);
            QCOMPARE(p.api, q.api);
            QCOMPARE(p.src, q.src);
            QCOMPARE(p.dst, q.dst);
            QCOMPARE(p.srcOffset, q.srcOffset);
            QCOMPARE(p.dstOffset, q.dstOffset);
            QCOMPARE(p.bytes, q.bytes);
            QCOMPARE(p.kernelType, q.kernelType);
            QCOMPARE(p.durationNs, q.durationNs);
            QCOMPARE(p.buffer, q.buffer);
            QCOMPARE(p.blocks, q.blocks);
            QCOMPARE(p.threadsPerBlock, q.threadsPerBlock);
            QCOMPARE(p.pdl, q.pdl);
            QCOMPARE(p.pdlGiven, q.pdlGiven);
            QVERIFY(p.gemm == q.gemm);
            QVERIFY(p.collective == q.collective);
            QCOMPARE(p.value, q.value);
            QCOMPARE(p.event, q.event);
            QCOMPARE(p.syncTarget, q.syncTarget);
            QCOMPARE(p.syncStream, q.syncStream);
            QCOMPARE(p.location, q.location);
            QCOMPARE(p.advise, q.advise);
            QCOMPARE(p.attach, q.attach);
            QCOMPARE(p.hostNs, q.hostNs);
        }
    }
    QCOMPARE(a.schedule.size(), b.schedule.size());
    for (std::size_t i = 0; i < a.schedule.size(); ++i) {
        QCOMPARE(a.schedule[i].stream, b.schedule[i].stream);
        QCOMPARE(a.schedule[i].op, b.schedule[i].op);
    }
}

} // namespace streamscope::engine::testing
