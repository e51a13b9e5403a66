import { readableDomain } from '../phishing/lookalike.ts';

/**
 * Senders whose authenticated mail is known to be wanted: the domains of SpamAssassin's default
 * welcome lists (`60_welcomelist_auth.cf`, `60_welcomelist_dkim.cf`: senders "often tagged
 * (incorrectly) as spam or high-profile domains that are common targets of spoofing", which
 * "follow proper opt-in and opt-out practices") and of rspamd's DMARC welcome list
 * (`maps.d/dmarc_whitelist.inc`: "top visited sites that have restrictive dmarc policy"), both
 * Apache License 2.0, as Debian ships SpamAssassin 4.0.1 and rspamd 3.4. Left out: services on
 * which anyone can send or publish under the service's own domain (mailing services such as
 * GetResponse, GovDelivery and HubSpot's starter domain, form and site builders, help desks), since
 * an authenticated message from them says nothing of who wrote it.
 *
 * Like those lists, it counts only when the domain proved itself (DMARC pass): anyone can write
 * the name of a known sender into a From line.
 */
const LISTED = new Set(
  `
* 1800flowers.com 23andme.com 55mulberry.com aa.com aaa.com aarp.org aasa.org abercrombie.com
accor-mail.com accountprotection.microsoft.com accounts.google.com accutrain.com aclj.org act.org
actionnetwork.org adidas.com adlmail.org adobespark.com adobesystems.com adoptapet.com adp.com
adt.com advice.hmrc.gov.uk advocareemail.com aeds.com aegpresents.com aenetworks.com
aerialschoolimages.com aeropostale.com aexp.com aexpfeedback.com agorafinancial.com aidtroops.com
airbnb.com aircanada.ca airfarewatchdog.com airtel.in aisleahead.com alert.bankofamerica.com
alibaba.com aliexpress.com alipay.com alison.com allinlearning.com ally.com amazon.com
americanbookcompany.com americanexpress.com americangreetings.com americauncensored.com
amolatina.com amtrak.com ancestry.com angieslist.com anthem.com aopa.org apache.org apple.com
ashleydsg.com ashleystewart.com asumag.com att-mail.com audubon.org autopartswarehouse.com avg.com
avis.com avito.ru avon.com badoo.com baker-taylor.com bankofamerica.com bannanarepublicfactory.com
bark.com barnesandnoble.com baseballexpress.com basecamp.com baskinrobbins.com bathandbodyworks.com
battle.net bebe.com beeline.ru berries.com berrylook.com bestbuddies.org bestwesternrewards.com
betabrand.com bhg.com biglots.com bigteams.com biocompare.com bitesquad.com bitglass.com
blackboard.com blackfriday.com bludot.com blueapron.com bluebellwholesale.com bmwusa.com bn.com
bodybuilding.com bookbub.com booking.com boredpanda.com bounceexchange.com box.com
bpdriverrewards.com bradfordexchange.com bradsdeals.com brahminusa.com brecks.com brit.co
broadridge.com brylanehome.com btr.com bucklemail.com buffalowildwings.com build.com cabelas.com
cainc.com calendly.com callofduty.com calm.com cambridge.org campingworld.com cancer.org
candidcolorhosting.com canon.com capitalone.com capitaloneemail.com cappex.com care.com
carecredit.com careerbuilder.com carfax.com carhartt-email.com carlsonhotels.com
carnivalcruiselineemail.com carolina.com carparts.com cars.com carters.com catofashions.com
cbssports.com cc.yahoo-inc.com center.io ceramicartsnetwork.org change.org channing-bete.com
charbroil.com charlotterusse.com charmsmusic.com charteremails.com chase.com chatbooks.com
cheaptickets.com checksunlimited.com cheddars.com chicagotribune.com childrensplace.com
cignasecure.com cio.com cisco.com citi.com clarksusa.com cnn.com coach.com coldwatercreek.com
colehaan.com collegenet.com colourpop.com columbia.com commonblackcollegeapp.com
commonsense-email.org conexionamericas.org constructionclaims.com consultant.ru consumercrafts.com
consumerreports.org consumerservicesdirect.com containerstore.com costasunglasses.com costco.com
craigslist.org crateandbarrel.com craylola.com creditkarma.com creditsesame.com crocs-email.com
csid.com csoonline.com customerville.com cvs.com dailykos.com dailymemphian.com dailysale.com
dailysteals.com darice.com davidsbridal.com daxkoengage.com dccc.org dcsg.com dctemail.com
dealnews.com dell.com delta.com deluxe.com denim-day.com denindays.org dentalcompare.com
destinationmaternity.com destinationxl.com dhccare.com dhl.com dia.co dickies.com digicert.com
digitalocean.com digitalsports.com dillards.com directgeneral.com discountschoolsupply.com
discounttire-email.com discover.com discoveryeducation.com dishemail.com diversifiedemail.com
dji.com docusign.com docusign.net doheny.com dollargeneral.com dollywood.com dominos.com
donorschoose.org doordash.com dove.com doverpublishing.com draftkings.com dropbox-mktg.com
dropbox.com dropboxmail.com druryhotels.com dsw.com duluthtradingemail.com dunhamssports-email.com
dunkindonuts.com e-lenscrafters.com ealert.nature.com ealerts.bankofamerica.com earthfare.com
eastbay.com ebags.com ebates.com ebay.at ebay.be ebay.ca ebay.co.uk ebay.com ebay.de ebay.es ebay.fr
ebay.ie ebay.it ebay.nl ebay.pt ebth.com echosign.com ed.gov eddiebauer.com edgenuity.com edlio.com
edlistservs.org education.com educationworld.com efax.com eharmony.com eldarion.com elfcosmetics.com
email-advanceautoparts.com email-allstate.com email-carmax.com email-libertymutual.com
email-lifetouch.com email-nationwide.com email-od.com email-weightwatchers.com email.hotels.com
email.washingtonpost.com emailbedbathandbeyond.com emailpackers.com endcitizensunited.org
energage.com entercom.com enterprise.com epicgames.com epriority.com ereflect.com esa.org
eschoolnews.com esetnod32.ru eshakti.com espnmail.com evanmoor-alerts.com eventtracker.com
everfi.net evernote.com everytown.org evesaddiction.com evine.com execucar.com expediamail.com
experian.com express.com ezchildtrack.com fabfitfun.com facebook.com facebookmail.com fafsa.gov
fanatics.com fandango.com fandangonow.com fansedge.com fashionnova.com fda.gov fedex.com
fidelity.com fider.io fingerhut.com finishline.com firstsouth.com firsttennessee.com fisglobal.com
fit2fat2fit.com fitbit.com fivebelow.com fivestarlinemen.com flipboard.com flyfrontier.com
foodservicedirector.com forever21.com fossil.com fox13memphis.com foxnews.com freebiesfrenzy.com
frontgate-email.com frontrowed.com funrewardsforyou.com gallup.com gallupmail.com gamestop.com
ganderoutdoors.com gap.com gapfactory.com garant.ru gateways.nature.com geico.com generalmills.com
genghisgrill.com gerber.com girlscouts.org globalfitnesschallenge.com gnc.com godvinemail.com
gofundme.com golfdigest.com golfnow.com goodreads.com google.com gosuslugi.ru gothamsteelstore.com
govdeals.com gracegentry.com grainger.com grammarly.com grandhomefurnishings.com
grandinroad-email.com grubhub.com gsnutsandmags.com guitarcenter.com gymboree.com gynzy.com
haggar.com hallmark.com handsonaswegrow.com harborfreight.com harlemglobetrotters.com
harpercollins.com hartvillegroup.com hbonow.com hcahealthcare.com headspace.com healthequity.com
hearstmags.com helpavet.co helpourvets.us hertz.com hgtv.com hh.ru hhs.gov hickoryfarms.com
highlights.com hilton.com hmrc.gov.uk hobsonsradius.com hollisterco.com hollywoodfeed.com
homeadvisor.com homechef.com homedepot.com homedepotemail.com homegoods.com honorsociety.org
horacemann.com horoscope.com hotels.com hotwire.com housershoes.com hp.com hrblock.com
hscloudsuite.com hulumail.com hyatt.com iclasspro.com iconicgroup.com icr.org iheart.com ihg.com
ihop-communications.com ikea-usa.com imdb.com improvementscatalog-email.com in.gov indeed.com
indeedemail.com info-aaas.org information.nature.com insideapple.com instacart.com instagram.com
ismg-campaigns.com itbusinessedge.com itunes.com ixl.com jared.com jcpenney.com jcrew.com
jeansdays.com jeansforvets.org jerrysartarama.com jessicalondon.com jet.com jetsetter.com joann.com
job-tree.com jobframe.net jobhat.com joinhandshake.com josabank.com jossandmain.com jostens.com
journeys.com justfab.com justflyemail.com kahoot.com katespade.com kay.com kayak.com kelloggs.com
keurig.com khanacademy.org kickstarter.com kidreports.com kirklands.com knowatom.com
kodakmoments.com konnectnow.com kraftrecipes.com krogeremail.com kyliecosmetics.com lakeside.com
landsend.com lastpass.com learningally.org legendsoflearning.com lemonlimeadventures.com
lendingclub.com lessonplanet.com levi.com lh.lufthansa.com lids.com lifeway.com lifewaystores.com
lightreading.com linkedin.com list.indiana.edu lists.asu.edu lists.in.gov lists.mailscanner.info
lists.wisc.edu listserv.syr.edu livestream.com livetext.com livingsocial.com livingwelldaily.com
livongo.com lmscheckout.com loft.com loftoutlet.com logmein.com longhornsteakhouse.com
lordandtaylor.com lormanonlinecourses.com lormanonlinelearning.com lowesforpros.com lowfares.com
lufthansa-group.com lumosity.com lumoslearning.com m-w.com macaronikid.com mackeeper.com
macmillan.com macys.com mail-fellowesbrands.com mail.hotels.com makermedia.com mandarinoriental.com
marshallsonline.com marthastewart.com marykay.com mattel.com maurices.com maxsamples.com mchdata.com
mealtrain.com medcompare.com meetup.com megafon.ru menswearhouse.com mercadolibre.com.ar
mercadolivre.com.br messenger.com michaels.com microsoft.com microsoftrewards.com midwestsports.com
milesandmore.com military.com minted.com mktgdillards.com mlb.com mlblists.com modcloth.com
mohela.com morningconsult.com motosnap.com movethisworld.com moviepass.com mozilla.org
mozillafoundation.org msbrooksclass.com mtshrm.org musiciansfriend.com mvideo.ru
mycollegeoptions.org myfitnesspal.com mylife.com mymapcorewards.com myschoolcast.com mystubhub.com
nassp.org nationalgeographic.com naturalhealthresponse.com naturalizer.com nba.com ncaa.com nea.org
neamemberbenefits.com neimanmarcusemail.com neobux.com neopost.com nest.com netflix.com newegg.com
newsdesk.world-nuclear-news.org newsmax.com newyorktimes.com nfl.com nflshop.com nhl.com nic.ru
nickjr.com nike.com ninewest.com nintendo.com nissanusa.com nl.reuters.com nm.com noom.com
nordstrom.com nordstromrack.com noredink.com northerntoolemail.com norton.com nsba.org
nyandcompany.com nyansa.com nytimes.com ocharleys.com ocm.com officedepot.com officesupply.com
olay.com oldchicago.com olivegarden.com omadahealth.com onekingslane.com opendns.com opentable.com
opticsplanet.com oriental-trading.com oshkosh.com overdrive.com overstock.com
paisleygraceboutique.com pandora.com pandora.net partycity.com passports.com payless.com
paypal-customerfeedback.com paypal.at paypal.be paypal.ca paypal.co.uk paypal.com paypal.de
paypal.es paypal.fr paypal.ie paypal.it paypal.nl paypal.pt paypalcredit.com pch.com penzeys.com
petco.com petsgeek.com pgsurveying.com pier1.com pinchme.com pinkcoconutboutique.com pinterest.com
planetfitness.com planningcenteronline.com plenti.com politicoemail.com portfolium.com
potterybarn.com potterybarnkids.com powerschool.com pre-kpages.com prepsportswear.com priceline.com
progressive.com promgirl.com publix.com pumpitupfun.com purefitnessinnovations.com puritan.com
quicken.com quickenloans.com quill.com quill.org rakuten.com ralphlauren.com rasa.io readingeggs.com
realsimple.com recommendedjobs.com redbox.com redditgifts.com reddressboutique.com redhat.com
regions.com rei.com remindmemd.com rentalcars.com renzullilearning.com rescueme.org research.net
retailmenot.com revrocket.us robotevents.com rockauto.com rockbottomgolf.com rocketloans.com
roku.com rostelecom.ru rothys.com rover.com rt.ru ruralking.com ruthschris-email.com
rxhealthalerts.com ryanairemail.com saks.com saksoff5th.com sallybeauty.com salsalabs.org
samsclub.com savethechildren.org sberbank.ru scholarships.com scholastic.com schwab.com
sci.scientific-direct.net sciencepubs.org seabourn.com sears-optical.com sears.com seaworld.com
secureworks.com senate.gov senzajobalerts.com serverchamber.com servicemansupport.org servicenow.com
sesamereminders.com sfsdata.com shape.com shermanstravel.com shipstation.com shmoop.com
shoecarnival.com shop-backinthesaddle.com shop-explorers.com shopify.com shoppbs.org
shoppinkblush.com shopstyle.com shopthemint.com shrm.org shutterfly.com silpada.com
silversingles.com siriusxm.com skype.com skype.net skyzone.com slickdeals.net slideshare.net
sling.com smartertravel.com smilereminder.com snapchat.com snapsurveys.com socrative.com
softball.com solarwinds.com soma.com sonicdrivein.com sonicwall.com southwest.com
southwestvacations.com sowntogrow.com spanx.com spectrumemails.com spiceworks.com
spirit-airlines.com sportclips.com sportmaster.ru spotify.com springer.delivery.net sprint.com
sprouts.com square.com squaretrade.com stackcommerce.com stamats.com stansberryresearch.com
staples.com starwoodhotels.com starz.com statefarm.com statefarminfo.com steinmart.com stenhouse.com
stewardship.com striderite.com subaru.com submittable.com suntrust.com superjeweler.com superjob.ru
surveydirectlive.com swimoutlet.com sylvanlearning.com takethemameal.com talbots.com tangocard.com
target.com tastycookerymailings.com tdworld.com teacherfindr.com teacherspayteachers.com teamapp.com
teamusa.org teamviewer.com techtrnds.com teespring.com testingmom.com testout.com tgw.com
theblaze.com theeducatorsnetwork.com thekeyrewards.com thelimited.com themailbox.com
thenorthface.com thepamperedchef.com thetileapp.com theupsstore.com thisoldhouse.com
thrivecausemetics.com thrivistlms.com thumbtack.com ticketmaster.com ticketnetwork.com
titanlamco.com tjmaxx.tjx.com tladoonline.com tobi.com tommiecopper.com tommy.com toofaced.com
topgolf.com touchofmodern.com tpr.gov.uk trackwrestling.com tractorsupply.com travelocity.com
travelodge.co.uk travelzoo.com trello.com tripadvisor.com trovit.com trulia.com tumblr.com
turnoutpac.org twinkl.co.uk twinkl.com twitter.com tyndale.com uber.com uhc.com ulmart.ru ulta.com
underarmour.com understood.org untuckit.com ups.com us-cert.gov usaa.com usafootball.com
usatestprep.com usbank.com uscourts.gov usda.gov uso.org usps.com usps.gov utair.ru
vacationmyrtlebeach.com vanheusen.com venmo.com verintefm.com verizonenterprise.com
verizonwireless.com vetsandfamily.com victoriassecret.com videoblocks.com virtualvocations.com
visa.com visadpsmessage.com visapayablesautomation.com visionworks.com vistaprint.com vitals.com
vividseats.com vk.com vkrugudruzei.ru vmware.com vnnsports.net vocabulary.com vzw.com vzwshop.com
walgreens.com walmart.com washingtontimesmail.com wayfair.com webmdprofessional.com
welcomehomevet.org wellframe.com wellsfargo.com wellsfargoemail.com wendys.com wested.org
westernunion.com whatsapp.com whirlpool.com whitehouseblackmarket.com wifeteachermommy.com
windows.com wish.com wizehive.com woot.com worldatwork.org wrangler.com wunderground.com wwe.com
wyndhamrewards.com xbox.com yankeecandle.com yelp.com ylginc.com yourhobbylobby.com youscience.com
youversion.com zagg.com zales.com zappos.com zayconfoods.com zazzle.com zdnet.online.com zearn.org
zillow.com zomato.com zoosk.com zumiez.com zyngamail.com
`
    .split(/\s+/)
    .filter(Boolean),
);

/** Whether `domain` is a listed sender's domain or under one (`ealerts.bankofamerica.com`). */
export function isListedSender(domain: string): boolean {
  const labels = readableDomain(domain).split('.');
  for (let i = 0; i < labels.length - 1; i++) if (LISTED.has(labels.slice(i).join('.'))) return true;
  return false;
}
