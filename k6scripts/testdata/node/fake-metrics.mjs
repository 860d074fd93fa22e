// Stand-in for k6's "k6/metrics" module: a Counter records every add.
export const added = [];

export class Counter {
  constructor(name) {
    this.name = name;
  }

  add(value, tags) {
    added.push({ metric: this.name, value, tags });
  }
}
