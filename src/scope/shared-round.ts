import { BaseStore, type Operation, type OperationResults } from "@langchain/langgraph-checkpoint";

/**
 * A store that hands one participant's calls to a {@link sharedFirstRound}:
 * its first `batch` joins the round, later ones go straight to the store.
 */
class RoundView extends BaseStore {
  private first = true;

  constructor(
    private readonly store: BaseStore,
    private readonly join: (ops: Operation[]) => Promise<unknown[]>,
  ) {
    super();
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    if (this.first) {
      this.first = false;
      return (await this.join([...operations])) as OperationResults<Op>;
    }
    return this.store.batch(operations);
  }
}

interface Pending {
  ops: Operation[];
  resolve: (results: unknown[]) => void;
  reject: (err: unknown) => void;
}

/**
 * Runs `participants` at once, each on its own view of `store`, and sends
 * the FIRST `batch` of every participant to the store as ONE batch: the
 * round leaves when every participant has made its first call or finished.
 * Searches of one batch with the same query share one query embedding
 * (HNSWStore, PostgresMemoryStore; RemoteStore sends one request), so the
 * kinds that search a turn's query (facts, episodes, kinds a layout adds)
 * cost one embedding between them. Later calls of a participant (neighbour
 * reads) go to the store directly. Deterministic: no timer decides what
 * joins the round.
 */
export async function sharedFirstRound<T extends unknown[]>(store: BaseStore, participants: { [K in keyof T]: (view: BaseStore) => Promise<T[K]> }): Promise<T> {
  const pending: Pending[] = [];
  let waiting = participants.length;
  const flush = () => {
    const calls = pending.splice(0);
    if (calls.length === 0) return;
    const all = calls.flatMap((c) => c.ops);
    store.batch(all).then(
      (results) => {
        let at = 0;
        for (const c of calls) {
          c.resolve((results as unknown[]).slice(at, at + c.ops.length));
          at += c.ops.length;
        }
      },
      (err: unknown) => {
        for (const c of calls) c.reject(err);
      },
    );
  };
  const arrived = () => {
    waiting -= 1;
    if (waiting === 0) flush();
  };
  const runs = participants.map((run) => {
    let joined = false;
    const view = new RoundView(store, (ops) =>
      new Promise<unknown[]>((resolve, reject) => {
        joined = true;
        pending.push({ ops, resolve, reject });
        arrived();
      }),
    );
    return Promise.resolve()
      .then(() => run(view))
      .finally(() => {
        if (!joined) {
          joined = true;
          arrived();
        }
      });
  });
  return (await Promise.all(runs)) as T;
}
