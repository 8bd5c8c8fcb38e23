import type { Shape } from '../shape'
import type { shellMessages as en } from '../en/shell'

/** Turkish messages for the app frame: names, navigation, status bar, sign-in, errors, shared words, shortcuts, pickers, field names (the same keys as en/shell.ts). */
export const shellMessages: Shape<typeof en> = {
  app: {
    name: 'Callsight',
    tagline: 'Kayıtlı çağrılar, çevrimdışı aranabilir',
    skipToContent: 'İçeriğe geç',
    loading: 'Yükleniyor…'
  },
  nav: {
    search: 'Arama',
    sync: 'Eşitleme',
    insight: 'Analiz',
    settings: 'Ayarlar',
    shortcuts: 'Klavye kısayolları',
    main: 'Ana gezinme',
    review: 'İnceleme'
  },
  status: {
    online: 'Çevrimiçi',
    offline: 'Çevrimdışı',
    offlineHint: 'Servise ulaşılamıyor. Yerel arama önbellek üzerinde çalışmaya devam eder.',
    cacheFresh: 'Önbellek {age} eşitlendi',
    cacheNever: 'Önbellek hiç eşitlenmedi',
    firstSyncStopped: 'İlk eşitleme {time} itibarıyla durdu',
    startContinues: 'Başlat kaldığı yerden sürdürür',
    cacheCalls: 'Önbellekte {count} çağrı',
    demo: 'Demo',
    relogin: 'Eşitlemek için yeniden oturum açın',
    zone: 'Saatler {zone} diliminde',
    teamAsOf: 'Ekip önbelleği {time} itibarıyla',
    teamNever: 'Ekip önbelleği henüz çekilmedi',
    teamNext: 'sonraki {time}',
    teamFailing: 'Son çekme başarısız oldu: {message}'
  },
  accounts: {
    switcherLabel: 'Hesap: {name}. Hesap değiştir',
    add: 'Hesap ekle',
    manage: 'Hesapları yönet…',
    needsSignIn: 'Kullanmak için yeniden oturum açın',
    switched: '{name} hesabına geçildi',
    switchFailed: 'Hesap değiştirilemedi'
  },
  signIn: {
    addTitle: 'Hesap ekleyin',
    addSubtitle: 'Başka bir servise veya kullanıcıyla oturum açın. Buradaki hesaplar oturumlarını ve kendi önbelleklerini korur.',
    cancelAdd: '{name} hesabına dön',
    otherAccounts: 'Bu bilgisayardaki hesaplar',
    useAccount: '{name} hesabını kullan',
    title: 'Çağrı servisine oturum açın',
    subtitle: 'Çağrılarınız bu bilgisayara eşitlenir; ardından arama çevrimdışı da çalışır.',
    baseUrl: 'Servis adresi',
    baseUrlHelp: 'Örneğin https://calls.example.com',
    username: 'Kullanıcı adı veya e-posta',
    password: 'Parola',
    submit: 'Oturum aç',
    signingIn: 'Oturum açılıyor…',
    demo: 'Demoyu deneyin',
    demoHelp: 'Üretilmiş çağrılarla yerel bir demo servisi başlatır. Hesap gerekmez.',
    or: 'veya',
    badUrl: 'https:// ile başlayan bir adres kullanın (düz http yalnızca bu bilgisayar için).',
    badUrlField: '{field}: https:// ile başlayan bir adres kullanın (düz http yalnızca bu bilgisayar için). Parolanız korundu.',
    refusedAdvice: 'Bu adreste yanıt veren yok: adresi ve bağlantı noktasını, servisin çalıştığını kontrol edin.',
    required: 'Tüm alanları doldurun.',
    noticeTitle: 'Not',
    errorTitle: 'Oturum açılamadı',
    notice: {
      browserMode:
        'Callsight tarayıcınızda çalışıyor (callsight serve); oturumunuz yalnızca o çalıştığı sürece tutulur. Yeniden başladıktan sonra tekrar oturum açmanız gerekir.',
      noKeyring:
        'Sistem anahtarlığı (GNOME Keyring veya KWallet gibi) bulunamadı; Callsight oturumunuzu yalnızca çalıştığı sürece tutar. Yeniden başlatmadan sonra tekrar oturum açmanız gerekir.',
      encryptionUnavailable:
        'Sistemin güvenli depolaması kullanılamıyor; Callsight oturumunuzu yalnızca çalıştığı sürece tutar. Yeniden başlatmadan sonra tekrar oturum açmanız gerekir.',
      notSaved:
        'Oturumunuz bu bilgisayara kaydedilemedi. Callsight kapanana kadar oturumunuz açık kalır; sonra tekrar oturum açmanız gerekir.',
      reloginRequired: 'Servisteki oturumunuz sona erdi; lütfen tekrar oturum açın.'
    }
  },
  errors: {
    InvalidCredentials: 'Kullanıcı adı veya parola yanlış. Kontrol edip yeniden deneyin.',
    ReloginRequired: 'Oturumunuz sona erdi. Eşitlemeye devam etmek için yeniden oturum açın.',
    IpNotAllowed:
      'Servis bu bilgisayarın ağ adresini reddetti. Servis operatörlerinden bu iş istasyonunun bağlandığı genel (çıkış) IP adresine veya aralığına izin vermelerini isteyin, sonra yeniden deneyin.',
    RateLimited: 'Servis istekleri sınırlıyor. {seconds} saniye bekleyip yeniden deneyin.',
    Validation: 'Servis isteği reddetti: {fields}',
    UnknownCallType: 'Servis “{callType}” çağrı türünü tanımıyor. Çağrı türlerini yenileyip yeniden seçin.',
    UnknownCallTypeLocal:
      '“{callType}” adında eşitlenmiş ya da içe aktarılmış bir çağrı türü yok. Bilinenler: {known}. Ayarlar’dan çağrı türü kataloğunu içe aktarın ya da bu türü eşitleyin.',
    Unauthorized: 'Servis oturumu kabul etmedi. Yeniden oturum açın.',
    ServerError: 'Serviste iç hata oluştu (HTTP {status}). Daha sonra yeniden deneyin; sürerse servis operatörlerine bildirin.',
    Network: 'Servise ulaşılamıyor. Adresi ve ağ bağlantınızı kontrol edin.',
    Timeout: 'Servis çok geç yanıt verdi. Yeniden deneyin veya daha kısa bir aralık eşitleyin.',
    MalformedResponse: 'Servis, uygulamanın okuyamadığı bir yanıt gönderdi.',
    Cancelled: 'İptal edildi.',
    InvalidInput: 'Bazı girdiler geçersiz: {fields}',
    NotSignedIn: 'Önce oturum açın.',
    NotFound: 'Bulunamadı.',
    DenseSecond: 'Tek bir saniyeye, güvenle sayfalanamayacak kadar çok çağrı düşüyor.',
    DatabaseTooNew:
      'Yerel önbellek Callsight’ın daha yeni bir sürümüyle yazılmış. Uygulamayı güncelleyin veya Ayarlar’dan önbelleği temizleyin.',
    Storage: 'Yerel önbellek okunamadı veya yazılamadı.',
    Forbidden: 'Bu işleme izin verilmiyor.',
    TeamSearchOff:
      'Ekip önbelleğinde arama kapalı: yöneticisi aramayı açmamış. Bu bilgisayardaki çağrılarda arayın ya da yöneticiden ekip önbelleği aramasını açmasını isteyin.',
    Internal: 'Uygulamanın içinde bir sorun oluştu.'
  },
  // The same codes where the team cache (PostgreSQL) answered, not the service or the local cache.
  teamErrors: {
    InvalidCredentials: 'Ekip önbelleği rolü ya da parolasını kabul etmedi. Kontrol edip yeniden deneyin.',
    Network:
      'Ekip önbelleğine ulaşılamıyor ya da sunucusu bağlantıyı kesti. Adresini ve PostgreSQL’in çalıştığını kontrol edip yeniden deneyin: çekme kaldığı yerden sürer.',
    Timeout: 'Ekip önbelleği zamanında yanıt vermedi. Yeniden deneyin: çekme kaldığı yerden sürer.',
    DatabaseTooNew: 'Ekip önbelleği Callsight’ın daha yeni bir sürümüyle kurulmuş. Bu bilgisayardaki uygulamayı güncelleyin.',
    Storage: 'Ekip önbelleği ya da yerel önbellek okunamadı veya yazılamadı.'
  },
  common: {
    justNow: 'az önce',
    cancel: 'İptal',
    close: 'Kapat',
    save: 'Kaydet',
    remove: 'Kaldır',
    apply: 'Uygula',
    clear: 'Temizle',
    copy: 'Kopyala',
    copied: 'Kopyalandı',
    yes: 'Evet',
    no: 'Hayır',
    any: 'Tümü',
    all: 'Tümü',
    none: 'Yok',
    retry: 'Yeniden dene',
    refresh: 'Yenile',
    never: 'hiç',
    calls: '{count} çağrı',
    error: 'Hata'
  },
  shortcuts: {
    title: 'Klavye kısayolları',
    focusSearch: 'Arama çubuğuna odaklan',
    moveRow: 'Sonuçlar arasında gezin',
    extendSelection: 'Seçimi genişlet',
    toggleRow: 'Geçerli satırı seç veya seçimi kaldır',
    open: 'Çağrı ayrıntısını aç',
    close: 'Ayrıntıyı veya bir pencereyi kapat',
    prevNext: 'Ayrıntıda önceki / sonraki çağrı',
    selectAll: 'Tüm sonuçları seç',
    export: 'Dışa aktar',
    goSearch: 'Aramaya git',
    goSync: 'Eşitlemeye git',
    goInsight: 'Analize git',
    goReview: 'İncelemeye git',
    goSettings: 'Ayarlara git',
    help: 'Bu listeyi göster',
    reviewNextPrev: 'İnceleme modu: sonraki / önceki çağrı',
    reviewAnswer: 'İnceleme modu: odaktaki ölçütü yanıtla',
    reviewTag: 'İnceleme modu: etiket ekle',
    reviewNote: 'İnceleme modu: not yaz',
    reviewReviewed: 'İnceleme modu: incelendi olarak işaretle',
    reviewFollowUp: 'İnceleme modu: takip gerekli olarak işaretle',
    reviewUndo: 'İnceleme modu: son değişikliği geri al',
    reviewNextUnreviewed: 'İnceleme modu: sonraki incelenmemiş çağrı',
    reviewRemove: 'İnceleme modu: çağrıyı listeden çıkar (önce sorar)',
    reviewList:
      'İnceleme modu: listedeki çağrıları göster veya gizle (orada: ↑ ↓ taşı, Boşluk seçer, Shift + tıklama aralık seçer, Del seçilenleri önce sorarak çıkarır)',
    click: 'tıklama',
    space: 'Boşluk',
    inDetail: 'ayrıntıda'
  },
  picker: {
    today: 'Bugün',
    clear: 'Temizle',
    weekHeader: 'Hf',
    noResults: 'Sonuç bulunamadı',
    noOptions: 'Seçenek yok',
    chooseYear: 'Yıl seçin',
    chooseMonth: 'Ay seçin',
    chooseDate: 'Tarih seçin',
    prevMonth: 'Önceki ay',
    nextMonth: 'Sonraki ay',
    prevYear: 'Önceki yıl',
    nextYear: 'Sonraki yıl',
    prevDecade: 'Önceki on yıl',
    nextDecade: 'Sonraki on yıl',
    previous: 'Önceki',
    next: 'Sonraki',
    selected: '{count} seçili'
  },
  fields: {
    durationSeconds: 'Süre (dk:sn)',
    durationSecondsExport: 'Süre (sn)',
    agentName: 'Temsilci',
    teamName: 'Ekip',
    language: 'Dil',
    direction: 'Yön',
    callType: 'Çağrı türü'
  }
}
