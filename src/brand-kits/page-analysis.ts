/**
 * What the extractor reads inside the loaded page: computed styles only (no network, no state).
 * Kept as plain JavaScript text, evaluated as is: a compiled function could carry helpers of the
 * TypeScript toolchain that do not exist in the page.
 *
 * Returns raw observations; brand-analysis.ts turns them into a brand kit with confidences.
 */
export const PAGE_ANALYSIS_SCRIPT = String.raw`(() => {
  const MAX_ELEMENTS = 4000;
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none' && Number(s.opacity) > 0.05;
  };
  const root = getComputedStyle(document.documentElement);
  const vars = {};
  for (const name of ['--primary', '--color-primary', '--brand', '--brand-color', '--primary-color', '--secondary', '--color-secondary',
    '--secondary-color', '--accent', '--color-accent', '--accent-color', '--bg', '--background', '--color-background', '--ink', '--text', '--color-text', '--foreground']) {
    const value = root.getPropertyValue(name).trim();
    if (value) vars[name] = value;
  }
  const probe = document.createElement('span');
  document.body.appendChild(probe);
  const colourOf = (css) => { probe.style.color = ''; probe.style.color = css; return probe.style.color ? getComputedStyle(probe).color : null; };
  for (const name of Object.keys(vars)) vars[name] = colourOf(vars[name]);
  const theme = document.querySelector('meta[name=theme-color]');
  const themeColour = theme ? colourOf(theme.content) : null;
  probe.remove();

  const bodyStyle = getComputedStyle(document.body);
  const htmlStyle = getComputedStyle(document.documentElement);
  const textColours = {};
  let counted = 0;
  for (const el of document.body.querySelectorAll('p, li, span, td, div, article, section')) {
    if (counted++ > MAX_ELEMENTS) break;
    const own = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent.trim()).join('');
    if (!own || !visible(el)) continue;
    const c = getComputedStyle(el).color;
    textColours[c] = (textColours[c] || 0) + own.length;
  }
  const buttons = [...document.querySelectorAll('button, .button, .btn, [role=button], input[type=submit], a[class*=button], a[class*=btn], [class*=cta]')]
    .filter(visible).slice(0, 200)
    .map((el) => { const s = getComputedStyle(el); const r = el.getBoundingClientRect();
      return { bg: s.backgroundColor, color: s.color, radius: parseFloat(s.borderTopLeftRadius) || 0, height: r.height, width: r.width }; });
  const cards = [...document.querySelectorAll('.card, [class*=card], .panel, [class*=tile], article')]
    .filter(visible).slice(0, 200)
    .map((el) => { const s = getComputedStyle(el); const r = el.getBoundingClientRect();
      return { radius: parseFloat(s.borderTopLeftRadius) || 0, height: r.height, width: r.width }; });
  const links = [...document.querySelectorAll('a[href]')].filter(visible).slice(0, 300).map((el) => getComputedStyle(el).color);
  const heading = document.querySelector('h1') || document.querySelector('h2');
  const paragraph = [...document.querySelectorAll('p')].find(visible);
  const logos = [...document.querySelectorAll('img')].filter(visible).slice(0, 300).map((img) => {
    const hint = [img.id, img.className, img.alt, img.getAttribute('src') || ''].join(' ').toLowerCase();
    return { src: img.currentSrc || img.src, named: hint.includes('logo'), inHeader: Boolean(img.closest('header, nav, [class*=header], [class*=navbar]')),
      linksHome: Boolean(img.closest('a[href="/"], a[href="./"], a[href="' + location.origin + '/"]')), width: img.getBoundingClientRect().width };
  });
  const icons = [...document.querySelectorAll('link[rel~=icon], link[rel=apple-touch-icon]')].map((l) => ({ href: l.href, rel: l.rel, sizes: l.getAttribute('sizes') || '' }));
  return {
    vars,
    theme_color: themeColour,
    body_bg: bodyStyle.backgroundColor,
    html_bg: htmlStyle.backgroundColor,
    body_color: bodyStyle.color,
    text_colours: textColours,
    buttons,
    cards,
    links,
    heading_font: heading ? getComputedStyle(heading).fontFamily : null,
    body_font: paragraph ? getComputedStyle(paragraph).fontFamily : bodyStyle.fontFamily,
    logos,
    icons,
  };
})()`;
