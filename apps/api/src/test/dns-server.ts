import dgram from 'node:dgram';

/**
 * What a test zone publishes per name (lower case, no trailing dot). `fail`: the server answers
 * questions about the name with SERVFAIL, or not at all (`timeout`: the resolver gives up).
 */
export interface TestZone {
  [name: string]: {
    MX?: Array<{ priority: number; exchange: string }>;
    TXT?: string[][];
    /** Addresses, as text (`192.0.2.1`, `2001:db8::1`). */
    A?: string[];
    AAAA?: string[];
    /** Reverse names, at an `in-addr.arpa` / `ip6.arpa` name. */
    PTR?: string[];
    fail?: 'servfail' | 'timeout';
  };
}

const TYPE = { A: 1, PTR: 12, MX: 15, TXT: 16, AAAA: 28 } as const;

/** An IPv6 address's 16 bytes (`::` expanded). */
function ipv6Bytes(address: string): Buffer {
  const [head = '', tail] = address.split('::');
  const groups = (part: string) => (part ? part.split(':') : []);
  const missing = 8 - groups(head).length - groups(tail ?? '').length;
  const all = [
    ...groups(head),
    ...(tail === undefined ? [] : Array(missing).fill('0')),
    ...groups(tail ?? ''),
  ];
  const bytes = Buffer.alloc(16);
  for (const [i, group] of all.entries()) bytes.writeUInt16BE(Number.parseInt(group, 16), i * 2);
  return bytes;
}

function encodeName(name: string): Buffer {
  const labels = name.replace(/\.$/, '').split('.').filter(Boolean);
  return Buffer.concat([
    ...labels.map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label, 'ascii')])),
    Buffer.from([0]),
  ]);
}

/** The question's name, type and where the question ends (only uncompressed names: as resolvers ask). */
function readQuestion(packet: Buffer): { name: string; type: number; end: number } | null {
  let at = 12;
  const labels: string[] = [];
  while (at < packet.length) {
    const length = packet[at]!;
    if (length === 0) break;
    if (length > 63) return null;
    labels.push(packet.subarray(at + 1, at + 1 + length).toString('ascii'));
    at += 1 + length;
  }
  if (at + 5 > packet.length) return null;
  return { name: labels.join('.').toLowerCase(), type: packet.readUInt16BE(at + 1), end: at + 5 };
}

function answer(type: number, zone: TestZone[string] | undefined): Buffer[] {
  const record = (rtype: number, data: Buffer) => {
    const head = Buffer.alloc(12);
    head.writeUInt16BE(0xc00c, 0); // the question's name
    head.writeUInt16BE(rtype, 2);
    head.writeUInt16BE(1, 4); // IN
    head.writeUInt32BE(60, 6); // TTL
    head.writeUInt16BE(data.length, 10);
    return Buffer.concat([head, data]);
  };
  if (type === TYPE.MX) {
    return (zone?.MX ?? []).map((mx) => {
      const preference = Buffer.alloc(2);
      preference.writeUInt16BE(mx.priority);
      return record(TYPE.MX, Buffer.concat([preference, encodeName(mx.exchange)]));
    });
  }
  if (type === TYPE.A) {
    return (zone?.A ?? []).map((address) => record(TYPE.A, Buffer.from(address.split('.').map(Number))));
  }
  if (type === TYPE.PTR) return (zone?.PTR ?? []).map((name) => record(TYPE.PTR, encodeName(name)));
  if (type === TYPE.AAAA) return (zone?.AAAA ?? []).map((address) => record(TYPE.AAAA, ipv6Bytes(address)));
  if (type === TYPE.TXT) {
    return (zone?.TXT ?? []).map((strings) =>
      record(
        TYPE.TXT,
        Buffer.concat(
          strings.map((s) => Buffer.concat([Buffer.from([Buffer.byteLength(s)]), Buffer.from(s)])),
        ),
      ),
    );
  }
  return [];
}

/**
 * A small authoritative DNS server on loopback (UDP) for tests: it answers A, AAAA, MX, PTR and TXT from `zone`
 * (which the test may change), NXDOMAIN for a name it does not hold, SERVFAIL or silence for a
 * name told to fail, and nothing else. Moat's own
 * resolver (node's c-ares) asks it, so the lookups are real DNS on the wire.
 */
export async function startDnsServer(zone: TestZone): Promise<{ address: string; close(): Promise<void> }> {
  const socket = dgram.createSocket('udp4');
  socket.on('message', (packet, peer) => {
    if (packet.length < 12) return;
    const question = readQuestion(packet);
    if (!question) return;
    const known = Object.hasOwn(zone, question.name) ? zone[question.name] : undefined;
    if (known?.fail === 'timeout') return;
    const records = known?.fail ? [] : answer(question.type, known);
    const header = Buffer.alloc(12);
    packet.copy(header, 0, 0, 2); // id
    // QR, opcode 0, AA, RD copied; RA; rcode NXDOMAIN (3) for an unknown name, SERVFAIL (2) when told.
    header[2] = 0x84 | (packet[2]! & 0x01);
    header[3] = 0x80 | (known?.fail === 'servfail' ? 2 : known ? 0 : 3);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(records.length, 6);
    socket.send(
      Buffer.concat([header, packet.subarray(12, question.end), ...records]),
      peer.port,
      peer.address,
    );
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
