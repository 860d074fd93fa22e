// Stand-in for k6's "k6/http" module: synchronous like k6, records every
// request and answers as a healthy CRUD server would.
export const requests = [];
let next = 0;

function record(method, url, body, params) {
  requests.push({ method, url, body: body ? JSON.parse(body) : null, params });
}

// failWith, when set (harness argv[3]), makes every request fail with
// status 0 and this k6 error code, as a dead target does.
let failWith = 0;
export function failAll(code) {
  failWith = code;
}

function response(status, id) {
  if (failWith) {
    return { status: 0, error_code: failWith, json: () => { throw new Error('no body'); } };
  }
  return { status, json: (key) => (key === 'id' ? id : undefined) };
}

export default {
  post(url, body, params) {
    record('POST', url, body, params);
    next += 1;
    return response(201, `id${next}`);
  },
  get(url, params) {
    record('GET', url, null, params);
    return response(200, url.split('/').pop());
  },
  put(url, body, params) {
    record('PUT', url, body, params);
    return response(200, url.split('/').pop());
  },
  del(url, body, params) {
    record('DELETE', url, body, params);
    return response(204, undefined);
  },
};
