// Stand-in for k6's "k6/http" module: synchronous like k6, records every
// request and answers as a healthy CRUD server would.
export const requests = [];
let next = 0;

function record(method, url, body, params) {
  requests.push({ method, url, body: body ? JSON.parse(body) : null, params });
}

function response(status, id) {
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
