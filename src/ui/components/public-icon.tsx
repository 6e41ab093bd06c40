// A project's icon (#19: approved with its public name, or submitted for review), served by the
// API under /api/v2/public-icons/: an <img> of a fixed size (no layout shift), loaded lazily, sent
// no referrer (the URL may be on the API's origin), with words for screen readers.

/** `src`: the API's icon_url (absolute http(s), or a path); anything else shows nothing. */
export function PublicIcon({ src, alt, size = 32 }: { src: string | null | undefined; alt: string; size?: number }) {
  if (!src || !/^(https?:\/\/|\/(?!\/))/.test(src)) return null;
  return <img class="pn-icon" src={src} alt={alt} width={size} height={size} loading="lazy" referrerpolicy="no-referrer" />;
}
