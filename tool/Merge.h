//===--- Merge.h - gradlint merge: one run's outcome from its shards ------===//

#ifndef GRADLINT_TOOL_MERGE_H
#define GRADLINT_TOOL_MERGE_H

namespace gradlint {

/// `gradlint merge [options] REPORT.json...`: the JSON reports of the shards
/// of one run (--shard I/N, --format=json) combined into the report, exit
/// status and baseline outcome that one whole run would have given.
/// Argv[0] is "merge".
int mergeMain(int Argc, const char **Argv);

} // namespace gradlint

#endif
