// Stands in for @fastify/busboy in the Lambda bundles (infra/bundle.ts). @whatwg-node/node-fetch requires it
// at import for Request.formData() of multipart and urlencoded bodies; no function reads such a body (the
// GraphQL function refuses every POST that is not JSON with 415 before reading it), so the parser (27 KB
// loaded at every cold start) is left out and a call to it fails loudly.
class Busboy {
  constructor() {
    throw new Error('multipart and urlencoded bodies are not read by this function (infra/bundleStubs/busboy.cjs)');
  }
}
module.exports = { Busboy };
