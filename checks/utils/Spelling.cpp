//===--- Spelling.cpp - how gradlint writes names into code and messages --===//

#include "utils/Spelling.h"

namespace clang::tidy::gradlint {

PrintingPolicy spellingPolicy(const ASTContext &Ctx) {
  PrintingPolicy Policy(Ctx.getLangOpts());
  Policy.SuppressInlineNamespace =
      llvm::to_underlying(PrintingPolicy::SuppressInlineNamespaceMode::All);
  Policy.SuppressUnwrittenScope = true;
  return Policy;
}

std::string qualifiedSpelling(const NamedDecl *D) {
  std::string Name;
  llvm::raw_string_ostream OS(Name);
  D->printQualifiedName(OS, spellingPolicy(D->getASTContext()));
  return Name;
}

} // namespace clang::tidy::gradlint
