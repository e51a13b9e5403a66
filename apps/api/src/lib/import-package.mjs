// `import()` of a package from the API's own directory, lent to the compiled server by
// scripts/run-server.mjs: the server runs from V8's code cache, and there Node 20 cannot serve the
// script's own `import()` ("A dynamic import callback was not specified"). Plain JavaScript: the
// start script imports it as it is.
export function importPackage(specifier) {
  return import(specifier);
}
