// Types of lib/vendor/tokenizers.js: scripts/build_npm.sh copies @huggingface/tokenizers' browser
// build there (a devDependency pinned in package-lock.json), so the package has no runtime
// dependency and the tokenizer resolves without an import map or a bundler setting.
export * from '@huggingface/tokenizers';
