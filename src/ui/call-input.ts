// A call's input read with the signature the API named it by ("transfer(address to, uint256
// amount)", a decoded_input's method_call): its arguments, only when the input is exactly that
// call (the selector matches and re-encoding the arguments gives the input back byte for byte),
// so a frame is never shown with a wrong decoding; null otherwise, and the page shows the raw input.
import { decodeFunctionData, encodeFunctionData, parseAbiItem, type AbiFunction, type Hex } from 'viem';

export interface CallArg {
  name: string;
  /** The ABI type ("address", "uint256", "bytes32[]"). */
  type: string;
  /** As viem decodes it: bigint for integers, checksummed text for addresses, hex for bytes, arrays for arrays. */
  value: unknown;
}

export interface DecodedCall {
  name: string;
  args: CallArg[];
}

const HEX = /^0x(?:[0-9a-fA-F]{2})*$/;

/** `input` decoded as `methodCall`, or null when the signature does not parse or the input is not exactly that call. */
export function decodeCall(methodCall: string | null | undefined, input: string | null | undefined): DecodedCall | null {
  if (!methodCall || !input || input.length < 10 || !HEX.test(input)) return null;
  let fn: AbiFunction;
  try {
    const item = parseAbiItem(`function ${methodCall}`);
    if (item.type !== 'function') return null;
    fn = item;
  } catch {
    // A signature viem does not read (a tuple named without its components): not decoded.
    return null;
  }
  try {
    const d = decodeFunctionData({ abi: [fn], data: input as Hex });
    const args = (d.args ?? []) as readonly unknown[];
    const again = encodeFunctionData({ abi: [fn], functionName: fn.name, args } as Parameters<typeof encodeFunctionData>[0]);
    if (again.toLowerCase() !== input.toLowerCase()) return null;
    return { name: fn.name, args: fn.inputs.map((p, i) => ({ name: p.name ?? '', type: p.type, value: args[i] })) };
  } catch {
    return null;
  }
}
