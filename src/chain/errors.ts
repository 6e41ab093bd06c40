/** Data from the node that does not hold together (counts or hashes disagree, missing fields). */
export class ChainDataError extends Error {
  override name = 'ChainDataError';
  readonly blockNumber: number | undefined;
  constructor(message: string, blockNumber?: number) {
    super(blockNumber === undefined ? message : `block ${blockNumber}: ${message}`);
    this.blockNumber = blockNumber;
  }
}
