/**
 * The pixel size of a screenshot as sent, read from its header (PNG IHDR, JPEG SOF): protocols whose
 * coordinates are pixels (OpenAI, Anthropic) map them against the exact image the model saw.
 */
export function imageSize(data: Uint8Array | string): { width: number; height: number } | null {
  const bytes = typeof data === "string" ? Buffer.from(data.slice(0, 64 * 1024), "base64") : Buffer.from(data);
  if (bytes.length >= 24 && bytes.readUInt32BE(0) === 0x89504e47) {
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  if (bytes.length > 4 && bytes[0] === 0xff && bytes[1] === 0xd8) {
    let i = 2;
    while (i + 9 < bytes.length) {
      if (bytes[i] !== 0xff) return null;
      const marker = bytes[i + 1]!;
      const length = bytes.readUInt16BE(i + 2);
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { width: bytes.readUInt16BE(i + 7), height: bytes.readUInt16BE(i + 5) };
      }
      i += 2 + length;
    }
  }
  return null;
}
