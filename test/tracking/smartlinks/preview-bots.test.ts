import { describe, expect, test } from 'bun:test';
import { isPreviewBot } from '../../../src/tracking/smartlinks/preview-bots';

describe('isPreviewBot', () => {
  const bots = {
    facebook: 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
    facebot: 'Facebot',
    imessage: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0',
    twitter: 'Twitterbot/1.0',
    linkedin: 'LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)',
    slack: 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
    discord: 'Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)',
    telegram: 'TelegramBot (like TwitterBot)',
    whatsapp: 'WhatsApp/2.23.20.0 A',
    pinterest: 'Pinterest/0.2 (+http://www.pinterest.com/bot.html)',
    pinterestbot: 'Mozilla/5.0 (compatible; Pinterestbot/1.0; +http://www.pinterest.com/bot.html)',
    reddit: 'Mozilla/5.0 (compatible; redditbot/1.0; +http://www.reddit.com/feedback)',
    skype: 'Mozilla/5.0 (Windows NT 6.1; WOW64) SkypeUriPreview Preview/0.5 skype-url-preview@microsoft.com',
    applebot: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)',
    inspection: 'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.91 Mobile Safari/537.36 (compatible; Google-InspectionTool/1.0)',
    vk: 'Mozilla/5.0 (compatible; vkShare; +http://vk.com/dev/Share)',
    embedly: 'Mozilla/5.0 (compatible; Embedly/0.2; +http://support.embed.ly/)',
    googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    bingbot: 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
  };
  const people = {
    chrome: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
    safari: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
    instagram: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 329.0.0.29.120 (iPhone14,5; iOS 17_4; en_US; en; scale=3.00; 1170x2532; 590446418)',
    facebookIos: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/458.0.0.36.108;FBBV/581420584;FBDV/iPhone14,5;FBMD/iPhone;FBSN/iOS;FBSV/17.4;FBSS/3;FBID/phone;FBLC/en_US;FBOP/5]',
    facebookAndroid: 'Mozilla/5.0 (Linux; Android 14; SM-S918B Build/UP1A.231005.007; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/124.0.6367.82 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/462.0.0.41.108;]',
    tiktok: 'Mozilla/5.0 (Linux; Android 13; Pixel 7 Build/TQ3A.230901.001; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/116.0.0.0 Mobile Safari/537.36 trill_2023109050 JsSdk/1.0 NetType/WIFI Channel/googleplay AppName/musical_ly app_version/31.9.5 ByteLocale/en Region/US BytedanceWebview/d8a21c6',
    pinterestApp: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [Pinterest/iOS]',
    linkedinApp: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [LinkedInApp]/9.29.8',
    snapchat: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Snapchat/12.80.0.39 (like Safari/8617.2.4.10.8, panda)',
  };

  test('crawlers and the social preview agents, by their real user agents', () => {
    for (const [name, agent] of Object.entries(bots)) expect([name, isPreviewBot(agent)]).toEqual([name, true]);
  });

  test('browsers and in-app browsers are people, asked twice (the cached verdict) too', () => {
    for (const round of [1, 2]) for (const [name, agent] of Object.entries(people)) expect([round, name, isPreviewBot(agent)]).toEqual([round, name, false]);
  });

  test('no user agent is not a preview bot', () => {
    expect([isPreviewBot(''), isPreviewBot(null), isPreviewBot(undefined)]).toEqual([false, false, false]);
  });
});
