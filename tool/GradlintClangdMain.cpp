//===--- GradlintClangdMain.cpp - clangd with the gradlint checks ---------===//
//
// clangd cannot load clang-tidy plugins, so editors reach gradlint through
// this build of clangd, which is Debian's clangdMain with the gradlint
// module linked in. Everything else is stock clangd.
//
//===----------------------------------------------------------------------===//

namespace clang::clangd {
int clangdMain(int Argc, char *Argv[]);
} // namespace clang::clangd

namespace clang::tidy {
// Keeps the gradlint module (checks/GradlintTidyModule.cpp) linked in.
extern volatile int GradlintModuleAnchorSource;
} // namespace clang::tidy

int main(int Argc, char *Argv[]) {
  (void)clang::tidy::GradlintModuleAnchorSource;
  return clang::clangd::clangdMain(Argc, Argv);
}
