import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DocHeap } from '../src/storage/docHeap';

function record(tag: number, size: number): Buffer {
  return Buffer.alloc(size, tag % 256);
}

describe('document heap file', () => {
  test('reads back records from the write buffer and from the file, across updates, releases and compactions', () => {
    const heap = new DocHeap(tmpdir(), 256 * 1024);
    const expected = new Map<number, Buffer>();
    let appended = 0;
    for (let i = 0; i < 3000; i++) {
      const bytes = record(i, 100 + (i % 700));
      expected.set(heap.add(bytes), bytes);
      appended += bytes.length;
      if (i % 2 === 0) {
        const [slot] = expected.keys();
        heap.release(slot);
        expected.delete(slot);
      }
      if (i % 5 === 0) {
        const slot = [...expected.keys()][Math.floor(expected.size / 2)];
        const next = record(i + 7, 50 + (i % 900));
        heap.update(slot, next);
        expected.set(slot, next);
        appended += next.length;
      }
    }
    const live = [...expected.values()].reduce((n, b) => n + b.length, 0);
    // garbage beyond 256 KiB and the live bytes was compacted away
    expect(heap.fileBytes).toBeLessThan(Math.max(2 * live, live + 256 * 1024) + 1024);
    expect(heap.fileBytes).toBeLessThan(appended / 1.5);
    const large = record(9, 3 * 1024 * 1024);
    expected.set(heap.add(large), large);
    for (const [slot, bytes] of expected) {
      expect(heap.size(slot)).toBe(bytes.length);
      expect(heap.read(slot).equals(bytes)).toBe(true);
    }
    const scanned = [...heap.readAll(expected.keys())];
    expect(scanned.map((b) => b.length)).toEqual([...expected.values()].map((b) => b.length));
    const values = [...expected.values()];
    for (const [i, b] of scanned.entries()) expect(b.equals(values[i])).toBe(true);
    heap.close();
  });

  test('leaves no file behind: the scratch file is unlinked as soon as it is created', () => {
    const dir = mkdtempSync(join(tmpdir(), 'em-heap-'));
    const heap = new DocHeap(dir);
    heap.add(record(1, 10));
    expect(readdirSync(dir)).toEqual([]);
    heap.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
