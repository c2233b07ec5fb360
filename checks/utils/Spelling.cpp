//===--- Spelling.cpp - how gradlint writes names into code and messages --===//

#include "utils/Spelling.h"
#include "gradlint/LlvmCompat.h"

namespace clang::tidy::gradlint {

PrintingPolicy spellingPolicy(const ASTContext &Ctx) {
  PrintingPolicy Policy(Ctx.getLangOpts());
#if LLVM_VERSION_MAJOR >= 22
  Policy.SuppressInlineNamespace =
      llvm::to_underlying(PrintingPolicy::SuppressInlineNamespaceMode::All);
#else
  Policy.SuppressInlineNamespace = true; // where the name stays unambiguous
#endif
  Policy.SuppressUnwrittenScope = true;
  return Policy;
}

std::string qualifiedSpelling(const NamedDecl *D) {
  std::string Name;
  llvm::raw_string_ostream OS(Name);
  D->printQualifiedName(OS, spellingPolicy(D->getASTContext()));
  return Name;
}

std::string quotedName(const NamedDecl *D) {
  std::string Name;
  llvm::raw_string_ostream OS(Name);
  OS << '\'';
  D->getNameForDiagnostic(OS, D->getASTContext().getPrintingPolicy(), /*Qualified=*/false);
  OS << '\'';
  return Name;
}

} // namespace clang::tidy::gradlint
