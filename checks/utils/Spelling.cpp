//===--- Spelling.cpp - how gradlint writes names into code and messages --===//

#include "utils/Spelling.h"
#include "gradlint/LlvmCompat.h"
#include "clang/AST/QualTypeNames.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/CharInfo.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

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

namespace {

/// The aliases a type would be printed with, and whether each is safe to
/// write anywhere (see aliasSpelling).
struct AliasScan : RecursiveASTVisitor<AliasScan> {
  bool Found = false;
  bool Safe = true;

  void check(const NamedDecl *D) {
    Found = true;
    llvm::StringRef Name = D->getName();
    if (Name.starts_with("_") || Name.contains("__"))
      Safe = false;
    for (const DeclContext *Scope = D->getDeclContext(); Scope; Scope = Scope->getParent())
      if (Scope->isFunctionOrMethod())
        Safe = false;
    if (D->getDeclContext()->isRecord() && D->getAccess() != AS_public)
      Safe = false;
  }
  bool VisitTypedefType(TypedefType *T) {
    check(T->getDecl());
    return Safe;
  }
  bool VisitUsingType(UsingType *T) {
    // `using std::string;`: the name printed is the one it brings in.
#if LLVM_VERSION_MAJOR >= 22
    check(T->getDecl()->getTargetDecl());
#else
    check(T->getFoundDecl()->getTargetDecl());
#endif
    return Safe;
  }
  bool VisitTemplateSpecializationType(TemplateSpecializationType *T) {
    if (T->isTypeAlias())
      if (const TemplateDecl *Alias = T->getTemplateName().getAsTemplateDecl())
        check(Alias);
    return Safe;
  }
  // Printed as `decltype(x)`: x may be a local of the function.
  bool VisitDecltypeType(DecltypeType *) { return Safe = false; }
  bool VisitTypeOfExprType(TypeOfExprType *) { return Safe = false; }
};

} // namespace

std::optional<std::string> aliasSpelling(QualType T, const ASTContext &Ctx,
                                         const PrintingPolicy &Policy) {
  if (T.isNull() || T->isDependentType())
    return std::nullopt;
  AliasScan Scan;
  Scan.TraverseType(T);
  if (!Scan.Found || !Scan.Safe)
    return std::nullopt;
  return TypeName::getFullyQualifiedName(T, Ctx, Policy);
}

std::string qualifiedSpelling(const NamedDecl *D) {
  std::string Name;
  llvm::raw_string_ostream OS(Name);
  D->printQualifiedName(OS, spellingPolicy(D->getASTContext()));
  return Name;
}

std::string optionName(const NamedDecl *D) {
  llvm::SmallVector<std::string, 4> Scopes;
  for (const DeclContext *DC = D->getDeclContext(); DC && !DC->isTranslationUnit();
       DC = DC->getParent()) {
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC)) {
      if (!NS->isAnonymousNamespace() && !NS->isInline())
        Scopes.push_back(NS->getNameAsString());
    } else if (const auto *Named = dyn_cast<NamedDecl>(DC)) {
      // A class (a specialization by its template's name), or the
      // function a local class is declared in.
      if (Named->getDeclName().isIdentifier() && !Named->getName().empty())
        Scopes.push_back(Named->getNameAsString());
    }
  }
  std::string Name;
  for (const std::string &Scope : llvm::reverse(Scopes))
    Name += Scope + "::";
  return Name + D->getDeclName().getAsString();
}

std::string quotedName(const NamedDecl *D) {
  std::string Name;
  llvm::raw_string_ostream OS(Name);
  OS << '\'';
  D->getNameForDiagnostic(OS, D->getASTContext().getPrintingPolicy(), /*Qualified=*/false);
  OS << '\'';
  return Name;
}

FixItHint replacementApart(CharSourceRange Range, std::string Text, const SourceManager &SM,
                           const LangOptions &LO) {
  CharSourceRange File = Lexer::makeFileCharRange(Range, SM, LO);
  if (File.isValid() && !Text.empty()) {
    auto [ID, Begin] = SM.getDecomposedLoc(File.getBegin());
    auto [EndID, End] = SM.getDecomposedLoc(File.getEnd());
    bool Invalid = false;
    llvm::StringRef Buffer = SM.getBufferData(ID, &Invalid);
    if (!Invalid && EndID == ID && End <= Buffer.size()) {
      if (End < Buffer.size() && isAsciiIdentifierContinue(Buffer[End]) &&
          isAsciiIdentifierContinue(Text.back()))
        Text += ' ';
      if (Begin > 0 && isAsciiIdentifierContinue(Buffer[Begin - 1]) &&
          isAsciiIdentifierContinue(Text.front()))
        Text.insert(Text.begin(), ' ');
    }
  }
  return FixItHint::CreateReplacement(Range, Text);
}

} // namespace clang::tidy::gradlint
